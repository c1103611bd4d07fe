package pools_test

import (
	"context"
	"slices"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

// The Karpenter provider's writes: a pool posted without waiting, resized, one instance deleted,
// the pool removed.

const writesRegion = "lon1"

// onFake is a client of a loopback Civo holding one cluster (with the fake's default manifest
// pool) and a pool "karp-1" of two nodes the test made.
func onFake(t *testing.T) (*fakecivo.Civo, *pools.Client, string, pools.State) {
	t.Helper()
	f := fakecivo.New(t, token, writesRegion)
	id := f.SeedCluster(civogo.KubernetesCluster{Name: "c"})
	c, err := pools.New(token, f.URL(), writesRegion)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Post(context.Background(), pools.Spec{ClusterID: id, ID: "karp-1", Size: "g4s.kube.small", Count: 2,
		Labels: map[string]string{"karpenter.clusterplane.dev/pool": "mark"}})
	if err != nil {
		t.Fatal(err)
	}
	return f, c, id, pool(t, c, id, "karp-1")
}

// pool is the cluster's pool id; the zero State when there is none.
func pool(t *testing.T, c *pools.Client, cluster, id string) pools.State {
	t.Helper()
	all, err := c.List(context.Background(), cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if p.ID == id {
			return p
		}
	}
	return pools.State{}
}

func instanceIDs(p pools.State) []string {
	var ids []string
	for _, in := range p.Instances {
		ids = append(ids, in.ID)
	}
	return ids
}

func TestPoolWritesChangeExactlyWhatTheySay(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		do    func(c *pools.Client, cluster string, p pools.State) error
		check func(t *testing.T, before, after pools.State)
	}{
		{
			name: "a resize to three keeps the two instances and adds one",
			do: func(c *pools.Client, cluster string, p pools.State) error {
				return c.Resize(ctx, cluster, p.ID, 3)
			},
			check: func(t *testing.T, before, after pools.State) {
				if after.Count != 3 || len(after.Instances) != 3 || !slices.Equal(instanceIDs(after)[:2], instanceIDs(before)) {
					t.Errorf("after the resize: %d, %v; want 3 with %v first", after.Count, instanceIDs(after), instanceIDs(before))
				}
			},
		},
		{
			name: "deleting the first instance removes it alone and lowers the count",
			do: func(c *pools.Client, cluster string, p pools.State) error {
				return c.DeleteInstance(ctx, cluster, p.ID, p.Instances[0].ID)
			},
			check: func(t *testing.T, before, after pools.State) {
				if after.Count != 1 || !slices.Equal(instanceIDs(after), instanceIDs(before)[1:]) {
					t.Errorf("after the delete: %d, %v; want 1, %v", after.Count, instanceIDs(after), instanceIDs(before)[1:])
				}
			},
		},
		{
			name: "a deleted instance's name is never given to a new one",
			do: func(c *pools.Client, cluster string, p pools.State) error {
				if err := c.DeleteInstance(ctx, cluster, p.ID, p.Instances[1].ID); err != nil {
					return err
				}
				return c.Resize(ctx, cluster, p.ID, 2)
			},
			check: func(t *testing.T, before, after pools.State) {
				if len(after.Instances) != 2 || after.Instances[0].ID != before.Instances[0].ID || after.Instances[1].ID == before.Instances[1].ID {
					t.Errorf("after delete and resize: %v (before %v): want the first kept and a new second", instanceIDs(after), instanceIDs(before))
				}
			},
		},
		{
			name: "deleting the pool removes it",
			do: func(c *pools.Client, cluster string, p pools.State) error {
				return c.Remove(ctx, cluster, p.ID)
			},
			check: func(t *testing.T, _, after pools.State) {
				if after.ID != "" {
					t.Errorf("the pool is still there: %+v", after)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, cluster, before := onFake(t)
			if before.Labels["karpenter.clusterplane.dev/pool"] != "mark" || len(before.Instances) != 2 {
				t.Fatalf("created pool %+v: want the label and two instances", before)
			}
			others := f.Pools()
			if err := tc.do(c, cluster, before); err != nil {
				t.Fatal(err)
			}
			tc.check(t, before, pool(t, c, cluster, before.ID))
			if tc.name != "deleting the pool removes it" && f.Pools() != others {
				t.Errorf("pools: %d, want %d", f.Pools(), others)
			}
		})
	}
}

func TestDeletingAMissingInstanceIsNotFound(t *testing.T) {
	_, c, cluster, p := onFake(t)
	err := c.DeleteInstance(context.Background(), cluster, p.ID, "no-such-instance")
	if !cloudapi.IsNotFound(err) {
		t.Errorf("got %v, want not found", err)
	}
}
