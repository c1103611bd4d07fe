package stackinput_test

import (
	"fmt"
	"strings"
	"testing"

	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	// The other cloud's pool is linked, as in every binary that serves a pool (its kind package
	// links it), so that its fields are told apart.
	_ "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// token is shaped like a DigitalOcean personal access token: dop_v1_ and 64 hex digits.
var token = "dop_v1_" + strings.Repeat("0123456789abcdef", 4)

func TestTheRulesTheCloudsEnforceNameTheFieldAtItsLineAndAcceptTheirNeighbours(t *testing.T) {
	doCluster := func(spec string) string {
		return `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: dev-fra1
spec:
  clusterName: dev-fra1
  region: fra1
  kubernetesVersion: 1.31.1-do.5
` + spec
	}
	// doClusterWith is a DigitalOcean cluster whose metadata has more lines after its name.
	doClusterWith := func(metadata, spec string) string {
		return strings.Replace(doCluster(spec), "  name: dev-fra1\n", "  name: dev-fra1\n"+metadata, 1)
	}
	civoPool := func(spec string) string {
		return `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata:
  name: apps
spec:
  nodePoolName: apps
  cluster: {value: a1b2c3d4-0000-4000-8000-000000000001}
  region: fra1
  size: g4s.kube.medium
  nodeCount: 2
` + spec
	}
	tests := []struct {
		name  string
		civo  bool
		text  string
		want  string // "line:column path rule", empty when the manifest is valid
		label string // what must not appear in the error
	}{
		{name: "a kubelet-reserved label on a DigitalOcean pool is named at its key", text: doCluster(`  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
    labels:
      kubernetes.io/role: system
`), want: "13:7 spec.defaultNodePool.labels[\"kubernetes.io/role\"] label_key.kubelet_namespace"},
		{name: "node.kubernetes.io/role on a DigitalOcean pool is accepted", text: doCluster(`  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
    labels:
      node.kubernetes.io/role: system
`)},
		{name: "Civo's own label namespace on a Civo pool is named at its key", civo: true, text: civoPool(`  labels:
    kubernetes.civo.com/pool: apps
`), want: "12:5 spec.labels[\"kubernetes.civo.com/pool\"] label_key.civo_namespace"},
		{name: "two DigitalOcean tags that differ only in case are named at the second", text: doCluster(`  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2}
  tags:
    - Team-Platform
    - team-platform
`), want: "12:7 spec.tags[1] tags.case_insensitive_unique"},
		{name: "two labels whose tags differ only in case are named at the second", text: doClusterWith(`  labels:
    Team: a
    team: a
`, `  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2}
`), want: "7:5 metadata.labels[\"team\"] tags.case_insensitive_unique"},
		{name: "a tag that differs only in case from the one metadata.env makes is named", text: doClusterWith(`  env: prod
`, `  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2}
  tags: [Environment:prod]
`), want: "11:10 spec.tags[0] tags.case_insensitive_unique"},
		{name: "a default pool's tag that differs only in case from a label's is named", text: doClusterWith(`  labels: {team: a}
`, `  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2, tags: [Team:a]}
`), want: "10:61 spec.defaultNodePool.tags[0] tags.case_insensitive_unique"},
		{name: "a tag spelt as a label's is the same tag and accepted", text: doClusterWith(`  env: prod
  labels: {team: a}
`, `  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2, tags: [team:a]}
  tags: [environment:prod, team:a]
`)},
		{name: "DigitalOcean tags that differ by more than case are accepted", text: doCluster(`  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2}
  tags: [team-platform, team-platforms]
`)},
		{name: "a DigitalOcean token pasted into a tag is refused without being shown", text: doCluster(`  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 2}
  tags: [` + token + `]
`), want: "10:10 spec.tags[0] value.token_shape", label: token},
		{name: "a dop_v1_ label value too short to be a token is accepted", civo: true, text: civoPool(`  labels:
    secret: ` + token[:60] + `
`)},
		{name: "a DigitalOcean token pasted into a label key is refused at the labels, key unshown", civo: true, text: civoPool(`  labels:
    ` + token + `: x
`), want: "11:3 spec.labels value.token_shape", label: token},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.civo {
				err = stackinput.Parse([]byte(tt.text), "m.yaml", &civopool.CivoKubernetesNodePoolStackInput{})
			} else {
				_, err = parse(tt.text)
			}
			var got []string
			for _, p := range stackinput.Problems(err) {
				got = append(got, fmt.Sprintf("%d:%d %s %s", p.Line, p.Column, p.Path, p.RuleID))
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("problems %v, want none", got)
			case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
				t.Errorf("problems %v, want exactly %q\n%v", got, tt.want, err)
			}
			if tt.label != "" && err != nil && strings.Contains(err.Error(), tt.label) {
				t.Errorf("the error shows the value:\n%v", err)
			}
		})
	}
}

func TestAnUnknownKeyIsNamedWhenItIsAnIdentifierAndHiddenWhenItCouldBeAToken(t *testing.T) {
	manifest := func(key string) string {
		return `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata: {name: apps}
spec:
  nodePoolName: apps
  cluster: {value: a1b2c3d4-0000-4000-8000-000000000001}
  region: fra1
  size: g4s.kube.medium
  nodeCount: 2
  ` + key + `: x
`
	}
	tests := []struct {
		name, key, want string
	}{
		{"an ordinary identifier far from every field is named", "surgeUpgradesPlease", "10:3 spec.surgeUpgradesPlease: unknown field"},
		{"a field of the other cloud's kind is named with whose it is", "tags",
			"10:3 spec.tags: unknown field (it is a field of DigitalOceanKubernetesNodePool, the other cloud's kind)"},
		{"a key with the digits of a token is hidden", "a8f3k2m9q1z7", "10:3 spec.(key): unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := stackinput.Parse([]byte(manifest(tt.key)), "m.yaml", &civopool.CivoKubernetesNodePoolStackInput{})
			problems := stackinput.Problems(err)
			if len(problems) != 1 {
				t.Fatalf("problems %v, want one", err)
			}
			p := problems[0]
			got := fmt.Sprintf("%d:%d %s: %s", p.Line, p.Column, p.Path, p.Message)
			if p.Hint != "" && strings.Contains(tt.want, "(it is") {
				got += " (" + p.Hint + ")"
			}
			if got != tt.want {
				t.Errorf("problem %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAManifestOfAnotherKindGetsOneErrorNamingItsProgram(t *testing.T) {
	pool := `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata: {name: workers}
spec:
  nodePoolName: workers
  cluster: {value: c1}
  size: s-2vcpu-4gb
  nodeCount: 2
`
	_, err := parse(pool)
	problems := stackinput.Problems(err)
	if len(problems) != 1 || problems[0].Path != "kind" || !strings.Contains(problems[0].Hint, "digitaloceankubernetesnodepool program") {
		t.Errorf("problems %v, want only the kind mismatch with the right program", err)
	}
}
