package instance_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/internal/testbed"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
)

func fast() *instance.Provider {
	p := instance.New()
	p.BatchWindow, p.PollInterval, p.WaitTimeout = 50*time.Millisecond, 10*time.Millisecond, 10*time.Second
	return p
}

func target(b testbed.Bed, mark string) instance.Target {
	return instance.Target{Cloud: b.Cloud, Cluster: b.Cluster,
		Spec: clouds.PoolSpec{Mark: mark, Size: b.SmallSize(), Labels: map[string]string{"team": "a"}}}
}

var mark = clouds.Mark("DigitalOceanNodeClass", "default", "spec")

// createAll runs n creates at once and returns their instances.
func createAll(t *testing.T, p *instance.Provider, tg instance.Target, n int) []instance.Instance {
	t.Helper()
	out := make([]instance.Instance, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i], errs[i] = p.Create(context.Background(), tg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

func marked(t *testing.T, b testbed.Bed) []clouds.Pool {
	var out []clouds.Pool
	for _, pl := range b.Pools(t) {
		if pl.Mark != "" {
			out = append(out, pl)
		}
	}
	return out
}

func TestTenConcurrentCreatesMakeOnePoolOfTenNodesInFewerRequests(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := fast()
			before := b.Cloud.Requests()
			got := createAll(t, p, target(b, mark), 10)
			requests := b.Cloud.Requests() - before
			pools := marked(t, b)
			if len(pools) != 1 || pools[0].Count != 10 || len(pools[0].Nodes) != 10 {
				t.Fatalf("marked pools %+v, want one of 10 nodes", pools)
			}
			var ids []string
			for _, in := range got {
				ids = append(ids, in.Node.ProviderID)
			}
			slices.Sort(ids)
			if len(slices.Compact(ids)) != 10 {
				t.Errorf("the creates got %v, want 10 different nodes", ids)
			}
			if requests >= 10 {
				t.Errorf("%d requests for 10 nodes, want fewer", requests)
			}
			if m := b.Manifest(t); m.Count != 2 || m.Mark != "" {
				t.Errorf("the manifest's pool changed: %+v", m)
			}
		})
	}
}

func TestACreateOnAnExistingPoolTakesTheNodeTheResizeAdded(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := fast()
			first := createAll(t, p, target(b, mark), 2)
			second := createAll(t, p, target(b, mark), 1)[0]
			if slices.ContainsFunc(first, func(in instance.Instance) bool { return in.Node.ProviderID == second.Node.ProviderID }) {
				t.Errorf("the second create got %s, a node the first ones had", second.Node.ProviderID)
			}
			if pools := marked(t, b); len(pools) != 1 || pools[0].Count != 3 {
				t.Errorf("marked pools %+v, want one of 3", pools)
			}
		})
	}
}

func TestDeleteRemovesExactlyItsNodeAndThePoolWithItsLast(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := fast()
			ctx := context.Background()
			made := createAll(t, p, target(b, mark), 2)
			if err := p.Delete(ctx, b.Cloud, b.Cluster, made[0].Node.ProviderID); err != nil {
				t.Fatal(err)
			}
			pools := marked(t, b)
			if len(pools) != 1 || pools[0].Count != 1 || len(pools[0].Nodes) != 1 || pools[0].Nodes[0].ProviderID != made[1].Node.ProviderID {
				t.Fatalf("after deleting %s: %+v, want the pool with %s alone", made[0].Node.ProviderID, pools, made[1].Node.ProviderID)
			}
			if err := p.Delete(ctx, b.Cloud, b.Cluster, made[1].Node.ProviderID); err != nil {
				t.Fatal(err)
			}
			if pools := marked(t, b); len(pools) != 0 {
				t.Errorf("after the last node: %+v, want no marked pool", pools)
			}
			if err := p.Delete(ctx, b.Cloud, b.Cluster, made[1].Node.ProviderID); !errors.Is(err, instance.ErrNotFound) {
				t.Errorf("deleting it again: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestANodeOfAPoolWithoutTheMarkIsNeverDeleted(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			m := b.Manifest(t)
			err := fast().Delete(context.Background(), b.Cloud, b.Cluster, m.Nodes[0].ProviderID)
			if !errors.Is(err, instance.ErrNotFound) {
				t.Errorf("deleting a manifest pool's node: %v, want ErrNotFound", err)
			}
			if after := b.Manifest(t); after.Count != 2 || len(after.Nodes) != 2 {
				t.Errorf("the manifest's pool changed: %+v", after)
			}
		})
	}
}

func TestListAndGetReadOnlyMarkedPools(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := fast()
			made := createAll(t, p, target(b, mark), 3)
			all, err := p.List(context.Background(), b.Cloud, b.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 3 {
				t.Errorf("List: %d nodes, want the 3 made", len(all))
			}
			got, err := p.Get(context.Background(), b.Cloud, b.Cluster, made[2].Node.ProviderID)
			if err != nil || got.Node.ProviderID != made[2].Node.ProviderID || got.Pool.Mark != mark {
				t.Errorf("Get: %+v, %v", got, err)
			}
		})
	}
}
