package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// exampleTarget is the target of an example manifest (examples/<path>) of kind.
func exampleTarget(t *testing.T, kind, path string) deploytarget.Target {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName(kind)
	in := k.NewStackInput()
	if err := stackinput.Parse(data, "c.yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("c.yaml", k, in, "")
}

// What an up finds unlike the manifest, though the manifest is the one its last up deployed, is
// put back only where the cloud changed it: the fields an adoption took over as the cloud had
// them (left for the next up) and a property the provider never reads from the cloud are what
// this up sets for the first time, said apart.
// Promise: up-puts-back-only-cloud-changes
func TestOnlyWhatTheCloudChangedIsPutBack(t *testing.T) {
	do := exampleTarget(t, "DigitalOceanKubernetesCluster", "digitaloceankubernetescluster/minimal.yaml")
	civo := exampleTarget(t, "CivoKubernetesCluster", "civokubernetescluster/minimal.yaml")
	ours := []any{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev-fra1"}
	tests := []struct {
		name       string
		target     deploytarget.Target
		step       stackstate.Step
		left       []string // what the last update, an adoption, left for this up
		sets, back bool
	}{
		{"tags an adoption left for the next up are set, not put back", do,
			stackstate.Step{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", Action: "update", Paths: []string{"tags"},
				Old: map[string]any{"tags": []any{}}, Live: map[string]any{"tags": []any{}}, New: map[string]any{"tags": ours}},
			[]string{"spec.tags"}, true, false},
		{"tags changed in the cloud after an up are put back", do,
			stackstate.Step{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", Action: "update", Paths: []string{"tags"},
				Old: map[string]any{"tags": []any{"sneaky"}}, Live: map[string]any{"tags": []any{"sneaky"}}, New: map[string]any{"tags": ours}},
			nil, false, true},
		{"what the adoption did not leave is put back", do,
			stackstate.Step{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", Action: "update", Paths: []string{"tags"},
				Old: map[string]any{"tags": []any{}}, Live: map[string]any{"tags": []any{}}, New: map[string]any{"tags": ours}},
			[]string{"spec.defaultNodePool.tags"}, false, true},
		{"a property the provider never reads back, as an import left it, is set", civo,
			stackstate.Step{Type: "civo:index/kubernetesCluster:KubernetesCluster", Action: "update", Paths: []string{"writeKubeconfig"},
				Old: map[string]any{"writeKubeconfig": false}, Live: map[string]any{"writeKubeconfig": false},
				New: map[string]any{"writeKubeconfig": true}},
			nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			manifest, err := stackrecord.Manifest(tt.target.Input)
			if err != nil {
				t.Fatal(err)
			}
			res := stackstate.Result{Steps: []stackstate.Step{tt.step}, Changes: map[string]int{"update": 1},
				Previous: map[string]any{deploytarget.ManifestOutput: manifest, deploytarget.GenerationOutput: deploytarget.Generation(tt.target.Input)}}
			read := 0
			o := fielddrift.PutBack(tt.target, outcome.Outcome{Status: outcome.Done, Result: &res, Reason: res.Summary()}, false, func() []string {
				read++
				return tt.left
			})
			if (len(o.Sets) > 0) != tt.sets || (len(o.PutBack) > 0) != tt.back {
				t.Errorf("sets %v, put back %v; want sets %t, put back %t (%s)", o.Sets, o.PutBack, tt.sets, tt.back, o.Reason)
			}
			if tt.back != strings.Contains(o.Reason, "put back what changed in the cloud") {
				t.Errorf("reason %q, want it to say put back: %t", o.Reason, tt.back)
			}
			if read > 1 {
				t.Errorf("the last update was read %d times, want at most once", read)
			}
		})
	}
}

// Promise: up-puts-back-only-cloud-changes
func TestAnAdoptionsUpdateNamesTheFieldsItLeft(t *testing.T) {
	left := fielddrift.AdoptionMessage([]outcome.Disagreement{{Field: "spec.tags"}, {Field: "spec.defaultNodePool.tags"}})
	tests := []struct {
		name string
		last *stackstate.Update
		want []string
	}{
		{"the fields an adoption left", &stackstate.Update{Operation: "update", Message: left}, []string{"spec.tags", "spec.defaultNodePool.tags"}},
		{"an adoption that named none, as adopt did before", &stackstate.Update{Operation: "update", Message: fielddrift.AdoptedWithChangesLeft}, []string{}},
		{"an up's update", &stackstate.Update{Operation: "update", Message: "rolled the pool"}, nil},
		{"a destroy", &stackstate.Update{Operation: "destroy", Message: left}, nil},
		{"no update yet", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fielddrift.AdoptionLeft(tt.last)
			if (got == nil) != (tt.want == nil) || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("adoptionLeft = %#v, want %#v", got, tt.want)
			}
		})
	}
}
