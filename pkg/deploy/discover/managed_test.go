package discover_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/deploy/discover"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestTheClustersClusterplaneDeployedAreLeftOutUnlessAskedFor(t *testing.T) {
	do := fakedo.New(t, doToken)
	civo := fakecivo.New(t, civoToken, "")
	ds := seed.Client{URL: do.URL(), Token: doToken}
	cs := seed.Client{URL: civo.URL(), Token: civoToken}
	ctx := context.Background()
	// "dev" was deployed by clusterplane: it carries the tags its metadata became.
	for _, c := range []seed.Cluster{
		{Tool: fakedo.Doctl, Name: "dev", Region: "fra1", Tags: []string{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev"},
			Pools: []seed.Pool{{}, {Name: "batch"}}},
		// "legacy" was made elsewhere, and clusterplane deployed its pool "web" as a stack of its own.
		{Tool: fakedo.Doctl, Name: "legacy", Region: "fra1", Pools: []seed.Pool{{}, {Name: "apps"},
			{Name: "web", Tags: []string{"resource-kind:DigitalOceanKubernetesNodePool", "resource-name:web"}}}},
	} {
		if _, _, err := fakedo.Seed(ctx, ds, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []seed.Cluster{
		{Name: "dev", Region: "fra1", Tags: []string{"resource-kind:CivoKubernetesCluster", "resource-name:dev"},
			Pools: []seed.Pool{{}, {Name: "workers", Size: "g4s.kube.large", Count: 1}}},
		{Name: "legacy", Region: "fra1"},
	} {
		if _, _, err := fakecivo.Seed(ctx, cs, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name                     string
		opts                     discover.Options
		managed, clusters, pools int
		managedPools             int
		noFileStarts             string
	}{
		{name: "digitalocean", opts: discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL(), Region: "fra1"},
			managed: 1, clusters: 1, pools: 1, managedPools: 1, noFileStarts: "dev"},
		{name: "digitalocean with --include-managed", opts: discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL(), Region: "fra1", IncludeManaged: true},
			managed: 0, clusters: 2, pools: 3},
		{name: "civo", opts: discover.Options{Kinds: registry.Kinds(), Cloud: "civo", Token: civoToken, APIURL: civo.URL(), Region: "fra1"},
			managed: 1, clusters: 1, pools: 0, noFileStarts: "dev"},
		{name: "civo with --include-managed", opts: discover.Options{Kinds: registry.Kinds(), Cloud: "civo", Token: civoToken, APIURL: civo.URL(), Region: "fra1", IncludeManaged: true},
			managed: 0, clusters: 2, pools: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := discover.Discover(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Managed != tc.managed || res.Clusters != tc.clusters || res.ManagedPools != tc.managedPools {
				t.Errorf("%d managed clusters and %d managed pools left out, %d clusters written; want %d, %d and %d",
					res.Managed, res.ManagedPools, res.Clusters, tc.managed, tc.managedPools, tc.clusters)
			}
			for _, f := range res.Files {
				if tc.noFileStarts != "" && strings.HasPrefix(f.Name, tc.noFileStarts) {
					t.Errorf("%s written, but its cluster is clusterplane's", f.Name)
				}
			}
			// A managed cluster's pools go with it.
			if res.Pools != tc.pools {
				t.Errorf("%d pools written, want %d", res.Pools, tc.pools)
			}
		})
	}
}
