package fakedo_test

import (
	"context"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestASavedCloudLoadsWithItsClustersAndHandsOutNoIdTwice(t *testing.T) {
	d, c := start(t)
	changes := 0
	d.OnChange(func() { changes++ })
	created, _, err := c.Kubernetes.Create(context.Background(), createRequest("kept"))
	if err != nil {
		t.Fatal(err)
	}
	if changes != 1 {
		t.Errorf("a create ran the change hook %d times, want once", changes)
	}
	if _, _, err := c.Kubernetes.Get(context.Background(), created.ID); err != nil {
		t.Fatal(err)
	}
	if changes != 1 {
		t.Errorf("a read ran the change hook: %d runs, want 1", changes)
	}
	data, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}

	again := fakedo.New(t, token)
	if err := again.Load(data); err != nil {
		t.Fatal(err)
	}
	got, ok := again.Cluster(created.ID)
	if !ok {
		t.Fatalf("the loaded cloud has no cluster %s", created.ID)
	}
	if got.Name != "kept" || len(got.NodePools) != 1 || len(got.NodePools[0].Nodes) != 2 {
		t.Errorf("loaded cluster %+v, want kept with one pool of two nodes", got)
	}
	second, _, err := client(t, again, token).Kubernetes.Create(context.Background(), createRequest("next"))
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	for _, n := range got.NodePools[0].Nodes {
		before[n.DropletID] = true
	}
	for _, n := range second.NodePools[0].Nodes {
		if before[n.DropletID] {
			t.Errorf("droplet id %s handed out again after a load", n.DropletID)
		}
	}
}
