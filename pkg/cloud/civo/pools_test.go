package civo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

const region = "lon1"

// onFake is a client of a loopback Civo holding one cluster (with the fake's default manifest
// pool) and a pool "karp-1" of two nodes the test made.
func onFake(t *testing.T) (*fakecivo.Civo, *civo.Client, string, civo.Pool) {
	t.Helper()
	f := fakecivo.New(t, token, region)
	id := f.SeedCluster(civogo.KubernetesCluster{Name: "c"})
	c := civo.New(f.URL(), token, civo.Options{})
	ctx := context.Background()
	err := c.CreatePool(ctx, region, id, civo.PoolRequest{ID: "karp-1", Size: "g4s.kube.small", Count: 2,
		Labels: map[string]string{"karpenter.clusterplane.dev/pool": "mark"}})
	if err != nil {
		t.Fatal(err)
	}
	return f, c, id, pool(t, c, id, "karp-1")
}

// pool is the cluster's pool id; the zero Pool when there is none.
func pool(t *testing.T, c *civo.Client, cluster, id string) civo.Pool {
	t.Helper()
	pools, err := c.Pools(context.Background(), region, cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		if p.ID == id {
			return p
		}
	}
	return civo.Pool{}
}

func instanceIDs(p civo.Pool) []string {
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
		do    func(c *civo.Client, cluster string, p civo.Pool) error
		check func(t *testing.T, before, after civo.Pool)
	}{
		{
			name: "a resize to three keeps the two instances and adds one",
			do: func(c *civo.Client, cluster string, p civo.Pool) error {
				_, err := c.ResizePool(ctx, region, cluster, p.ID, 3)
				return err
			},
			check: func(t *testing.T, before, after civo.Pool) {
				if after.Count != 3 || len(after.Instances) != 3 || !slices.Equal(instanceIDs(after)[:2], instanceIDs(before)) {
					t.Errorf("after the resize: %d, %v; want 3 with %v first", after.Count, instanceIDs(after), instanceIDs(before))
				}
			},
		},
		{
			name: "deleting the first instance removes it alone and lowers the count",
			do: func(c *civo.Client, cluster string, p civo.Pool) error {
				return c.DeleteInstance(ctx, region, cluster, p.ID, p.Instances[0].ID)
			},
			check: func(t *testing.T, before, after civo.Pool) {
				if after.Count != 1 || !slices.Equal(instanceIDs(after), instanceIDs(before)[1:]) {
					t.Errorf("after the delete: %d, %v; want 1, %v", after.Count, instanceIDs(after), instanceIDs(before)[1:])
				}
			},
		},
		{
			name: "a deleted instance's name is never given to a new one",
			do: func(c *civo.Client, cluster string, p civo.Pool) error {
				if err := c.DeleteInstance(ctx, region, cluster, p.ID, p.Instances[1].ID); err != nil {
					return err
				}
				_, err := c.ResizePool(ctx, region, cluster, p.ID, 2)
				return err
			},
			check: func(t *testing.T, before, after civo.Pool) {
				if len(after.Instances) != 2 || after.Instances[0].ID != before.Instances[0].ID || after.Instances[1].ID == before.Instances[1].ID {
					t.Errorf("after delete and resize: %v (before %v): want the first kept and a new second", instanceIDs(after), instanceIDs(before))
				}
			},
		},
		{
			name: "deleting the pool removes it",
			do: func(c *civo.Client, cluster string, p civo.Pool) error {
				return c.DeletePool(ctx, region, cluster, p.ID)
			},
			check: func(t *testing.T, _, after civo.Pool) {
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
	err := c.DeleteInstance(context.Background(), region, cluster, p.ID, "no-such-instance")
	if !cloudapi.IsNotFound(err) {
		t.Errorf("got %v, want not found", err)
	}
}

func TestSizesReadKubernetesSizesWithTheirShape(t *testing.T) {
	_, c, _, _ := onFake(t)
	sizes, err := c.Sizes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sizes, func(s civo.Size) bool { return s.Name == "an.g1.l40s.kube.x1" })
	if i < 0 || sizes[i].Type != "kubernetes" || sizes[i].CPUCores != 12 || sizes[i].RAMMB != 65536 || sizes[i].GPUCount != 1 {
		t.Errorf("the L40S size: %+v", sizes)
	}
}
