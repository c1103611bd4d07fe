package seed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestDoctlsClusterHasTheDefaultsAndTagsDigitalOceanGivesIt(t *testing.T) {
	do := fakedo.New(t, "tok")
	id, pools, err := seed.Client{URL: do.URL(), Token: "tok"}.DigitalOcean(context.Background(),
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

func TestTheCivoCLIsClusterHasItsOwnFirewallTheDefaultNetworkAndApplications(t *testing.T) {
	civo := fakecivo.New(t, "tok", "")
	id, pools, err := seed.Client{URL: civo.URL(), Token: "tok"}.Civo(context.Background(),
		seed.Cluster{Name: "api", Region: "fra1", Pools: []seed.Pool{{}, {Name: "workers", Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := civo.Cluster(id)
	if !ok {
		t.Fatalf("cluster %s not found", id)
	}
	if c.NetworkID != civo.DefaultNetworkID("fra1") {
		t.Errorf("network %s, want fra1's default %s", c.NetworkID, civo.DefaultNetworkID("fra1"))
	}
	if _, ok := civo.Firewall(c.FirewallID); !ok || c.FirewallID == "" {
		t.Errorf("no firewall of its own (%q)", c.FirewallID)
	}
	if len(c.InstalledApplications) == 0 {
		t.Error("no default applications installed")
	}
	if len(pools) != 2 || pools[1] != "workers" || len(c.Pools) != 2 || c.Pools[0].Size != "g4s.kube.medium" || c.Pools[0].Count != 3 {
		t.Errorf("pools %v, cluster's %+v; want the CLI's 3 g4s.kube.medium, then workers", pools, c.Pools)
	}
}
