package diffpairs

import (
	"strings"
	"testing"

	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"google.golang.org/protobuf/proto"
)

// input is a small stack input of a DigitalOcean cluster, as a pair's example would load it.
func input() *dcv1.DigitalOceanKubernetesClusterStackInput {
	return &dcv1.DigitalOceanKubernetesClusterStackInput{Target: &dcv1.DigitalOceanKubernetesCluster{
		Metadata: &sharedv1.CloudResourceMetadata{Name: "dev-fra1"},
		Spec: &dcv1.DigitalOceanKubernetesClusterSpec{ClusterName: "dev-fra1", Region: "fra1",
			DefaultNodePool: &dcv1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 2,
				Labels: map[string]string{"workload": "system", "tier": "one"}}},
	}}
}

func TestSetSetsEachDottedPathInTheManifestAndProviderConfigsInTheStackInput(t *testing.T) {
	tests := []struct {
		name  string
		paths map[string]any
		want  func(*dcv1.DigitalOceanKubernetesClusterStackInput)
	}{
		{"a value replaces the one at its path and leaves its neighbours",
			map[string]any{"spec.defaultNodePool.nodeCount": 3},
			func(in *dcv1.DigitalOceanKubernetesClusterStackInput) { in.Target.Spec.DefaultNodePool.NodeCount = 3 }},
		{"a map replaces the map whole",
			map[string]any{"spec.defaultNodePool.labels": map[string]any{"team": "x"}},
			func(in *dcv1.DigitalOceanKubernetesClusterStackInput) {
				in.Target.Spec.DefaultNodePool.Labels = map[string]string{"team": "x"}
			}},
		{"null removes a field, and a key of a map",
			map[string]any{"spec.region": nil, "spec.defaultNodePool.labels.tier": nil},
			func(in *dcv1.DigitalOceanKubernetesClusterStackInput) {
				in.Target.Spec.Region = ""
				delete(in.Target.Spec.DefaultNodePool.Labels, "tier")
			}},
		{"a path through a message not set makes it, enums and lists by their manifest names",
			map[string]any{"spec.maintenanceWindow.day": "sunday", "spec.tags": []any{"a", "b"}},
			func(in *dcv1.DigitalOceanKubernetesClusterStackInput) {
				in.Target.Spec.MaintenanceWindow = &dcv1.DigitalOceanKubernetesClusterMaintenanceWindow{
					Day: dcv1.DigitalOceanKubernetesClusterMaintenanceDay_sunday}
				in.Target.Spec.Tags = []string{"a", "b"}
			}},
		{"metadata is the manifest's and providerConfig the stack input's",
			map[string]any{"metadata.name": "dev-fra1-b", "providerConfig.apiToken": "tok"},
			func(in *dcv1.DigitalOceanKubernetesClusterStackInput) {
				in.Target.Metadata.Name = "dev-fra1-b"
				in.ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "tok"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := input(), input()
			if err := set(got, tt.paths); err != nil {
				t.Fatal(err)
			}
			tt.want(want)
			if !proto.Equal(got, want) {
				t.Errorf("set %v gave %v, want %v", tt.paths, got, want)
			}
		})
	}
}

func TestSetRefusesAPathOrAValueTheStackInputCannotHold(t *testing.T) {
	tests := []struct {
		name  string
		paths map[string]any
		says  string
	}{
		{"a misspelt field", map[string]any{"spec.clustrName": "x"}, "clustrName"},
		{"a value of another type", map[string]any{"spec.defaultNodePool.nodeCount": "three"}, "nodeCount"},
		{"an enum name the kind lacks", map[string]any{"spec.maintenanceWindow.day": "someday"}, "someday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := set(input(), tt.paths)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("set %v = %v, want an error naming %s", tt.paths, err, tt.says)
			}
		})
	}
}

func TestReadTakesEveryKeyOfAPair(t *testing.T) {
	pairs, err := read([]byte(`
- name: an intended replacement passes
  edit: {spec.deletionProtection: false}
  change: {spec.region: ams3}
  args: [--allow-replace]
  path: spec.region
  effect: refused
  refusal: kept
  exit: blocked
- name: labels on the default pool break a rule
  change: {spec.defaultNodePool.labels: {a: b}}
  path: spec.defaultNodePool.labels
  invalid: true
  exit: invalid
- name: scaling updates
  change: {spec.defaultNodePool.nodeCount: 3}
  path: spec.defaultNodePool.nodeCount
  effect: update
`))
	if err != nil || len(pairs) != 3 {
		t.Fatalf("read %d pairs, %v; want 3", len(pairs), err)
	}
	p := pairs[0]
	if p.Name != "an intended replacement passes" || len(p.Args) != 1 || p.Args[0] != "--allow-replace" ||
		p.Path != "spec.region" || p.Effect != effects.Refused || p.Refusal != effects.Kept || p.Exit != exitcode.Blocked {
		t.Errorf("first pair %+v", p)
	}
	oldInput, newInput := input(), input()
	for _, err := range []error{set(oldInput, p.edit), set(newInput, p.edit), set(newInput, p.change)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if oldInput.Target.Spec.GetDeletionProtection() || newInput.Target.Spec.GetDeletionProtection() ||
		oldInput.Target.Spec.Region != "fra1" || newInput.Target.Spec.Region != "ams3" {
		t.Errorf("edit and change made OLD %v and NEW %v", oldInput, newInput)
	}
	if !pairs[1].Invalid || pairs[1].Exit != exitcode.Invalid || pairs[1].Effect != "" {
		t.Errorf("second pair %+v, want invalid", pairs[1])
	}
	if pairs[2].edit != nil || pairs[2].Exit != exitcode.OK {
		t.Errorf("third pair %+v, want no edit and exit 0", pairs[2])
	}
}

func TestReadRefusesAPairWrittenWrong(t *testing.T) {
	const good = "  change: {spec.region: ams3}\n  path: spec.region\n"
	tests := []struct {
		name, text, says string
	}{
		{"a misspelt key, which would drop its check", "- name: a\n" + good + "  efect: update\n", "efect"},
		{"a pair without a name", "- change: {spec.region: ams3}\n  path: spec.region\n  effect: update\n", "needs a name"},
		{"a pair without a change", "- name: a\n  path: spec.region\n  effect: update\n", "needs a name, a change"},
		{"a pair without a path", "- name: a\n  change: {spec.region: ams3}\n  effect: update\n", "and a path"},
		{"a pair with neither effect nor invalid", "- name: a\n" + good, "either the effect"},
		{"a pair with both effect and invalid", "- name: a\n" + good + "  effect: update\n  invalid: true\n", "either the effect"},
		{"an exit of no name", "- name: a\n" + good + "  effect: update\n  exit: 3\n", `exit "3"`},
		{"two pairs of one name", "- name: a\n" + good + "  effect: update\n- name: a\n" + good + "  effect: update\n",
			"pair 2 (\"a\"): another pair has the same name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := read([]byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("read = %v, want an error saying %s", err, tt.says)
			}
		})
	}
}
