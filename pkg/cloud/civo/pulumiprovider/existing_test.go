package pulumiprovider_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/civo/civogo"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

// Within a run (runlist), the look-ups by name of every stack take a region's clusters from the
// run's one list of it; another region is listed once too; outside any run, each look-up lists
// the region itself.
func TestTheLookUpsOfARunListEachRegionOnce(t *testing.T) {
	civo := fakecivo.New(t, "tok", "")
	first := civo.SeedCluster(civogo.KubernetesCluster{Name: "c1", NetworkID: civo.DefaultNetworkID("fra1")})
	cfg := &civov1.CivoProviderConfig{ApiToken: "tok", ApiUrl: civo.URL()}
	lookUps := func(t *testing.T, ctx context.Context) {
		t.Helper()
		for _, name := range []string{"c1", "c2", "absent"} {
			if _, err := pulumiprovider.ClustersNamed(ctx, cfg, "fra1", name); err != nil {
				t.Fatal(err)
			}
		}
		named, err := pulumiprovider.ClustersNamed(ctx, cfg, "fra1", "c1")
		if err != nil || len(named) != 1 || named[0].ID != first {
			t.Fatalf("ClustersNamed(c1) = %v, %v; want %s", named, err, first)
		}
		if _, err := pulumiprovider.ClustersNamed(ctx, cfg, "lon1", "c1"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		ctx   context.Context
		lists int
	}{
		{"a run lists each region once for all its look-ups", runlist.With(context.Background(), runlist.New()), 2},
		{"look-ups outside a run each list their region", context.Background(), 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			civo.Reset()
			lookUps(t, tt.ctx)
			lists := 0
			for _, r := range civo.Requests(http.MethodGet) {
				if r.Path == "/v2/kubernetes/clusters" {
					lists++
				}
			}
			if lists != tt.lists {
				t.Errorf("the region's clusters were listed %d times, want %d", lists, tt.lists)
			}
		})
	}
}
