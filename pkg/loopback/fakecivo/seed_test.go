package fakecivo_test

import (
	"context"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

func TestTheCivoCLIsClusterHasItsOwnFirewallTheDefaultNetworkAndApplications(t *testing.T) {
	civo := fakecivo.New(t, "tok", "")
	id, pools, err := fakecivo.Seed(context.Background(), seed.Client{URL: civo.URL(), Token: "tok"},
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
	if _, ok := civo.Networking().Firewall(c.FirewallID); !ok || c.FirewallID == "" {
		t.Errorf("no firewall of its own (%q)", c.FirewallID)
	}
	if len(c.InstalledApplications) == 0 {
		t.Error("no default applications installed")
	}
	if len(pools) != 2 || pools[1] != "workers" || len(c.Pools) != 2 || c.Pools[0].Size != "g4s.kube.medium" || c.Pools[0].Count != 3 {
		t.Errorf("pools %v, cluster's %+v; want the CLI's 3 g4s.kube.medium, then workers", pools, c.Pools)
	}
}
