package stackinput_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// manifest returns a valid bare DigitalOceanKubernetesCluster manifest in YAML whose cluster is
// named name, so that each source of a stack input can be told apart.
func manifest(name string) string {
	return `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: ` + name + `
spec:
  clusterName: ` + name + `
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`
}

// stackInput wraps manifest(name) under target, with providerConfig.
func stackInput(name, providerConfig string) string {
	return "target:\n" + indent(manifest(name)) + "providerConfig: " + providerConfig + "\n"
}

func indent(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func parse(text string) (*cluster.DigitalOceanKubernetesClusterStackInput, error) {
	input := &cluster.DigitalOceanKubernetesClusterStackInput{}
	err := stackinput.Parse([]byte(text), "test.yaml", input)
	return input, err
}

func TestParseReadsEveryFormOfTheSameStackInput(t *testing.T) {
	want, err := parse(stackInput("dev-fra1", "{}"))
	if err != nil {
		t.Fatalf("the reference stack input does not parse: %v", err)
	}
	if want.GetTarget().GetSpec().GetDefaultNodePool().GetNodeCount() != 2 || want.GetProviderConfig() == nil {
		t.Fatalf("the reference stack input parsed to %v", want)
	}
	tests := []struct {
		name string
		text string
	}{
		{"a bare YAML manifest", manifest("dev-fra1")},
		{"a JSON stack input", `{"target": {"apiVersion": "digitalocean.clusterplane.dev/v1",
			"kind": "DigitalOceanKubernetesCluster", "metadata": {"name": "dev-fra1"},
			"spec": {"clusterName": "dev-fra1", "region": "fra1", "kubernetesVersion": "1.31.1-do.5",
			"defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}, "providerConfig": {}}`},
		{"a bare JSON manifest", `{"apiVersion": "digitalocean.clusterplane.dev/v1",
			"kind": "DigitalOceanKubernetesCluster", "metadata": {"name": "dev-fra1"},
			"spec": {"clusterName": "dev-fra1", "region": "fra1", "kubernetesVersion": "1.31.1-do.5",
			"defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}`},
		{"a YAML stack input in snake_case", `target:
  api_version: digitalocean.clusterplane.dev/v1
  kind: DigitalOceanKubernetesCluster
  metadata: {name: dev-fra1}
  spec:
    cluster_name: dev-fra1
    region: fra1
    kubernetes_version: 1.31.1-do.5
    default_node_pool: {size: s-2vcpu-4gb, node_count: 2}
provider_config: {}
`},
		{"a bare manifest mixing camelCase and snake_case", `api_version: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata: {name: dev-fra1}
spec:
  clusterName: dev-fra1
  region: fra1
  kubernetes_version: 1.31.1-do.5
  defaultNodePool: {size: s-2vcpu-4gb, node_count: 2}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(tt.text)
			if err != nil {
				t.Fatalf("Parse() = %v", err)
			}
			// A bare manifest has no providerConfig; everything else is the same.
			if got.ProviderConfig == nil {
				got.ProviderConfig = want.ProviderConfig
			}
			if !proto.Equal(got, want) {
				t.Errorf("Parse() = %v\nwant %v", got, want)
			}
		})
	}
}

func TestParseOfABareManifestLeavesTheProviderConfigUnset(t *testing.T) {
	got, err := parse(manifest("dev-fra1"))
	if err != nil {
		t.Fatal(err)
	}
	if got.ProviderConfig != nil {
		t.Errorf("providerConfig = %v, want unset so the environment supplies it", got.ProviderConfig)
	}
}

func TestParseResetsTheMessageBeforeFillingIt(t *testing.T) {
	input := &cluster.DigitalOceanKubernetesClusterStackInput{}
	if err := stackinput.Parse([]byte(stackInput("first", `{apiToken: tok-first}`)), "a", input); err != nil {
		t.Fatal(err)
	}
	if err := stackinput.Parse([]byte(manifest("second")), "b", input); err != nil {
		t.Fatal(err)
	}
	if input.GetProviderConfig().GetApiToken() != "" {
		t.Error("the token of an earlier parse survived into the next")
	}
}

func TestParseReportsViolationsRelativeToWhatTheFileIs(t *testing.T) {
	bad := strings.Replace(manifest("dev-fra1"), "clusterName: dev-fra1", "clusterName: Dev_Fra1", 1)
	tests := []struct {
		name     string
		text     string
		wantLine string
	}{
		{"a bare manifest reports spec.x at its line", bad, "test.yaml:6:3: spec.clusterName: "},
		{"a stack input reports target.spec.x at its line", "target:\n" + indent(bad) + "providerConfig: {}\n",
			"test.yaml:7:5: target.spec.clusterName: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.text)
			problems := stackinput.Problems(err)
			if len(problems) != 1 || problems[0].RuleID != "string.pattern" {
				t.Fatalf("problems = %v, want one broken pattern", problems)
			}
			if !strings.HasPrefix(err.Error(), tt.wantLine) {
				t.Errorf("error %q does not start with %q", err, tt.wantLine)
			}
		})
	}
}

func TestParseListsEveryMistakeOfAManifestInTheOrderOfTheFile(t *testing.T) {
	text := `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: Not_A_Label
spec:
  clusterName: dev-fra1
  kubernetesVersion: latest
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCont: 2
  tags: [k8s]
`
	_, err := parse(text)
	var got []string
	for _, p := range stackinput.Problems(err) {
		got = append(got, fmt.Sprintf("%d:%d %s %s", p.Line, p.Column, p.Path, p.RuleID))
	}
	want := []string{
		"4:3 metadata.name string.pattern",
		"5:1 spec.region required",
		"7:3 spec.kubernetesVersion kubernetes_version.slug",
		"10:5 spec.defaultNodePool.nodeCont field.unknown",
		"11:10 spec.tags[0] tag.not_reserved",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n got: %s\nwant: %s\nerror:\n%v", strings.Join(got, "\n  "), strings.Join(want, "\n  "), err)
	}
}

func TestAMisspeltOrMisplacedFieldIsReportedAloneNotAlsoAsTheFieldItMeantBeingAbsent(t *testing.T) {
	valid := manifest("dev-fra1")
	tests := []struct {
		name string
		text string
		// want are the problems, each "LINE:COLUMN path: message (hint)".
		want []string
	}{
		{"a misspelt nodeCount", strings.Replace(valid, "nodeCount: 2", "nodeCont: 2", 1),
			[]string{"11:5 spec.defaultNodePool.nodeCont: unknown field (did you mean nodeCount?)"}},
		{"a nodeCount indented one level too far out", strings.Replace(valid, "    nodeCount: 2", "  nodeCount: 2", 1),
			[]string{"11:3 spec.nodeCount: unknown field (nodeCount belongs to spec.defaultNodePool)"}},
		{"a misspelt region", strings.Replace(valid, "region: fra1", "regoin: fra1", 1),
			[]string{"7:3 spec.regoin: unknown field (did you mean region?)"}},
		{"a misspelt key beside the field it resembles keeps the field's own rule",
			strings.Replace(valid, "nodeCount: 2", "nodeCount: 0\n    nodeCont: 2", 1),
			[]string{"11:5 spec.defaultNodePool.nodeCount: must be at least 1 unless autoScale is true",
				"12:5 spec.defaultNodePool.nodeCont: unknown field (did you mean nodeCount?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.text)
			var got []string
			for _, p := range stackinput.Problems(err) {
				got = append(got, fmt.Sprintf("%d:%d %s", p.Line, p.Column, strings.TrimPrefix(p.String(), p.File+fmt.Sprintf(":%d:%d: ", p.Line, p.Column))))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tt.want, "\n      "))
			}
		})
	}
}

func TestParseRejectsAnUnknownFieldByNameWithTheNearestOne(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{"in the spec of a bare manifest", strings.Replace(manifest("dev-fra1"), "nodeCount: 2", "nodeCont: 2", 1),
			"spec.defaultNodePool.nodeCont: unknown field (did you mean nodeCount?)"},
		{"at the top of a bare manifest", manifest("dev-fra1") + "extra: true\n",
			"extra: unknown field (the fields here are apiVersion, kind, metadata, spec, status)"},
		{"in the provider config of a stack input", stackInput("dev-fra1", "{region: fra1}"),
			"providerConfig.region: unknown field (region belongs to target.spec)"},
		{"at the top of a stack input", stackInput("dev-fra1", "{}") + "outputs: {}\n", "outputs: unknown field"},
		{"in a JSON manifest", `{"apiVersion": "digitalocean.clusterplane.dev/v1", "kind": "DigitalOceanKubernetesCluster",
			"metadata": {"name": "dev-fra1", "namespac": "default"}}`, "metadata.namespac: unknown field (did you mean name?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v does not say %q", err, tt.want)
			}
		})
	}
}

func TestParseRejectsTextThatIsNotAMappingAtItsLine(t *testing.T) {
	tests := []struct{ text, want string }{
		{"- a\n- b\n", "test.yaml:1:1: must be a mapping"},
		{"just a string\n", "test.yaml:1:1: must be a mapping"},
		{"key: [unclosed\n", "test.yaml:1:1: not valid YAML"},
		{"", "test.yaml: holds no manifest: the file is empty"},
		{"# only a comment\n", "test.yaml: holds no manifest: the file is empty"},
		{"---\n", "test.yaml: holds no manifest: the file is empty"},
		{"--- # only markers\n...\n", "test.yaml: holds no manifest: the file is empty"},
	}
	for _, tt := range tests {
		if _, err := parse(tt.text); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error starting %q", tt.text, err, tt.want)
		}
	}
}

// Promise: tokens-never-shown
func TestParseNeverShowsTheProviderTokenInAnError(t *testing.T) {
	const token = "dop_v1_tok-SENTINEL-0123456789abcdef"
	withToken := func(text string) string {
		return strings.Replace(text, "providerConfig: {}", "providerConfig:\n  apiToken: "+token, 1)
	}
	valid := stackInput("dev-fra1", "{}")
	tests := []struct {
		name string
		text string
	}{
		{"violations in the spec", strings.Replace(withToken(valid), "nodeCount: 2", "nodeCount: 0", 1)},
		{"an unknown field in the spec", strings.Replace(withToken(valid), "nodeCount: 2", "nodeCont: 2", 1)},
		{"an unknown field next to the token", withToken(valid) + "  token: " + token + "\n"},
		{"an invalid api url next to the token", withToken(valid) + "  apiUrl: 'not a url " + token + "'\n"},
		{"a wrong type for another field", strings.Replace(withToken(valid), "nodeCount: 2", "nodeCount: two", 1)},
		{"a wrong type for the token", strings.Replace(valid, "providerConfig: {}", "providerConfig:\n  apiToken: ["+token+"]", 1)},
		{"a YAML syntax error after the token", withToken(valid) + "  apiUrl: [\n"},
		{"a missing target", "providerConfig:\n  apiToken: " + token + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.text, token) {
				t.Fatalf("the test text holds no token:\n%s", tt.text)
			}
			_, err := parse(tt.text)
			if err == nil {
				t.Fatalf("Parse() accepted:\n%s", tt.text)
			}
			if strings.Contains(err.Error(), "SENTINEL") {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
}

func TestLoadFileNamesTheFileInItsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	write(t, path, strings.Replace(manifest("dev-fra1"), "region: fra1", "region: Mars1", 1))
	err := stackinput.LoadFile(path, &cluster.DigitalOceanKubernetesClusterStackInput{})
	want := path + ":7:3: spec.region: must be a region code: 2 to 5 lower-case letters, then a digit or two, e.g. fra1 (`clusterplane regions CLOUD` lists them) (regions are lower case on both clouds: write mars1)"
	if err == nil || err.Error() != want {
		t.Errorf("LoadFile() = %v, want %q", err, want)
	}
	if err := stackinput.LoadFile(filepath.Join(dir, "missing.yaml"), &cluster.DigitalOceanKubernetesClusterStackInput{}); err == nil {
		t.Error("LoadFile() of a missing file succeeded")
	}
}

func TestTargetReturnsTheManifestInsideAStackInput(t *testing.T) {
	input, err := parse(stackInput("dev-fra1", "{}"))
	if err != nil {
		t.Fatal(err)
	}
	target, ok := apikinds.Target(input).(*cluster.DigitalOceanKubernetesCluster)
	if !ok || target != input.GetTarget() {
		t.Errorf("apikinds.Target() = %T %v, want the stack input's target", apikinds.Target(input), apikinds.Target(input))
	}
}

func TestCloudNameIsTheSpecFieldThatNamesTheClusterOrPoolInTheCloud(t *testing.T) {
	for _, tt := range []struct {
		input proto.Message
		want  string
	}{
		{&cluster.DigitalOceanKubernetesClusterStackInput{}, "spec.clusterName"},
		{&dopool.DigitalOceanKubernetesNodePoolStackInput{}, "spec.nodePoolName"},
		{&civocluster.CivoKubernetesClusterStackInput{}, "spec.clusterName"},
		{&civopool.CivoKubernetesNodePoolStackInput{}, "spec.nodePoolName"},
	} {
		if got := stackinput.CloudName(tt.input); got != tt.want {
			t.Errorf("CloudName(%T) = %q, want %q", tt.input, got, tt.want)
		}
	}
}
