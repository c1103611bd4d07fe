package fielddrift

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// A value the update works out (the id of a firewall the module would create) reaches an
// adoption's disagreement as the engine's unknown stand-in: it is said as unknown, never shown as
// if it were an id.
func TestAnAdoptionsDisagreementSaysAValueOnlyTheUpdateWorksOutAsUnknown(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "civokubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := registry.Kinds().ByName("CivoKubernetesCluster")
	input := k.NewStackInput()
	if err := stackinput.Parse(text, "minimal.yaml", input); err != nil {
		t.Fatal(err)
	}
	typ := k.Effects.Types[effects.Cluster]
	step := stackstate.Step{Type: typ, Name: "dev-fra1", Action: "update", Paths: []string{"firewallId"},
		New: map[string]any{"firewallId": plugin.UnknownStringValue}, Old: map[string]any{"firewallId": "fw-of-another"}}
	got := Disagreements(k.Effects, input, typ, []stackstate.Step{step})
	if len(got) != 1 || got[0].Manifest != KnownWhenUpRuns || got[0].Live != "fw-of-another" {
		t.Errorf("disagreements %+v, want one saying up sends %q over fw-of-another", got, KnownWhenUpRuns)
	}
}
