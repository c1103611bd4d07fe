package fakecivo_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

func TestASavedCloudLoadsWithItsClustersFirewallsAndNetworksAndHandsOutNoIdTwice(t *testing.T) {
	f := fakecivo.New(t, token, "")
	changes := 0
	f.OnChange(func() { changes++ })
	c := client(t, f, "lon1")
	fw := firewall(t, c, "kept-fw")
	cl, err := c.NewKubernetesClusters(clusterConfig("kept", fw))
	if err != nil {
		t.Fatal(err)
	}
	if changes != 2 {
		t.Errorf("two creates ran the change hook %d times, want 2", changes)
	}
	data, err := f.Save()
	if err != nil {
		t.Fatal(err)
	}

	again := fakecivo.New(t, token, "")
	if err := again.Load(data); err != nil {
		t.Fatal(err)
	}
	got, ok := again.Cluster(cl.ID)
	if !ok {
		t.Fatalf("the loaded cloud has no cluster %s", cl.ID)
	}
	if got.Name != "kept" || got.FirewallID != fw || len(got.Pools) != 1 {
		t.Errorf("loaded cluster %+v, want kept behind %s with one pool", got, fw)
	}
	if _, ok := again.Networking().Firewall(fw); !ok {
		t.Errorf("the loaded cloud has no firewall %s", fw)
	}
	next := firewall(t, client(t, again, "lon1"), "next-fw")
	if next == fw {
		t.Errorf("firewall id %s handed out again after a load", fw)
	}
}
