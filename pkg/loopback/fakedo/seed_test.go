package fakedo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestDoctlsClusterHasTheDefaultsAndTagsDigitalOceanGivesIt(t *testing.T) {
	do := fakedo.New(t, "tok")
	id, pools, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: "tok"},
		seed.Cluster{Name: "web", Region: "fra1", Pools: []seed.Pool{{}, {Name: "extra", Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := do.Cluster(id)
	if !ok {
		t.Fatalf("cluster %s not found", id)
	}
	if !c.SurgeUpgrade || c.AutoUpgrade {
		t.Errorf("surge upgrade %v, auto-upgrade %v; doctl turns surge on and auto-upgrade off", c.SurgeUpgrade, c.AutoUpgrade)
	}
	if len(pools) != 2 || len(c.NodePools) != 2 {
		t.Fatalf("pools %v, cluster's %d; want 2", pools, len(c.NodePools))
	}
	first := c.NodePools[0]
	if first.Name != "web-default-pool" || first.Size != "s-1vcpu-2gb" || first.Count != 3 {
		t.Errorf("first pool %s %s x%d, want web-default-pool s-1vcpu-2gb x3", first.Name, first.Size, first.Count)
	}
	for _, tag := range []string{"k8s", "k8s:" + id} {
		if !slices.Contains(c.Tags, tag) {
			t.Errorf("cluster tags %v lack DigitalOcean's %s", c.Tags, tag)
		}
	}
	if !slices.Contains(first.Tags, "k8s:worker") {
		t.Errorf("pool tags %v lack k8s:worker", first.Tags)
	}
}
