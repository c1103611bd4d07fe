package discover_test

import (
	"context"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	civopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civopoolresource "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/poolresource"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/discover"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// What discover writes for a Civo pool is what adopt reads (the annotation, through
// deploytarget.CloudID) and what the pool's provider imports: a pool's name alone names no cluster.
func TestADiscoveredCivoPoolCarriesTheIDItsProviderImports(t *testing.T) {
	civo := seededCivo(t)
	res, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "civo", Token: civoToken, APIURL: civo.URL()})
	if err != nil {
		t.Fatal(err)
	}
	api, _ := civo.ClusterNamed("api")
	pools := 0
	for _, f := range res.Files {
		if f.Kind != "CivoKubernetesNodePool" {
			continue
		}
		pools++
		in := &civopoolv1.CivoKubernetesNodePoolStackInput{}
		if err := stackinput.Parse(f.Data, f.Name, in); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		id := deploytarget.CloudID(in)
		if want := api.ID + ":workers"; id != want || f.CloudID != want {
			t.Errorf("%s records the cloud id %q (said %q), want %q", f.Name, id, f.CloudID, want)
		}
		// An import reads with the id only: no state, no inputs.
		r := &civopoolresource.Resource{Config: civopoolresource.Config{Token: civoToken, APIURL: civo.URL(), Region: "fra1"}}
		got, _, inputs, err := r.Read(context.Background(), id, resource.PropertyMap{}, resource.PropertyMap{})
		if err != nil || got != "workers" || inputs["clusterId"].StringValue() != api.ID {
			t.Errorf("the provider imports %q as %q with cluster %v: %v", id, got, inputs["clusterId"], err)
		}
	}
	if pools != 1 {
		t.Errorf("%d pool files, want 1", pools)
	}
}
