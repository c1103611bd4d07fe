package instance_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/internal/testbed"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"github.com/digitalocean/godo"
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

// Promise: karpenter-pools-found-by-mark
// Promise: karpenter-readme-unmarked-pools-untouched
// Promise: karpenter-readme-pools-without-the-mark-untouched
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

// Promise: karpenter-pools-found-by-mark
// Promise: karpenter-readme-pools-found-by-mark
// Promise: karpenter-readme-unmarked-pools-untouched
// Promise: karpenter-readme-pools-without-the-mark-untouched
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

func TestANodeTheCloudIsDeletingIsGoneAndNotDeletedAgain(t *testing.T) {
	b := testbed.DigitalOcean(t)
	p := fast()
	made := createAll(t, p, target(b, mark), 2)
	pool := marked(t, b)[0]
	b.DO.EditPool(b.Cluster.ID, pool.ID, func(np *godo.KubernetesNodePool) {
		for _, n := range np.Nodes {
			if n.ID == made[0].Node.ID {
				n.Status = &godo.KubernetesNodeStatus{State: "deleting"}
			}
		}
	})
	deletes := len(b.DO.Requests(http.MethodDelete))
	err := p.Delete(context.Background(), b.Cloud, b.Cluster, made[0].Node.ProviderID)
	if !errors.Is(err, instance.ErrNotFound) {
		t.Errorf("deleting a node in state deleting: %v, want ErrNotFound", err)
	}
	if got := len(b.DO.Requests(http.MethodDelete)); got != deletes {
		t.Errorf("%d DELETE requests, want none", got-deletes)
	}
	if _, err := p.Get(context.Background(), b.Cloud, b.Cluster, made[1].Node.ProviderID); err != nil {
		t.Errorf("the other node: %v", err)
	}
}

// Many NodeClaims at once, as a large scheduling round and the ones after it send them: creates
// for three NodeClasses' pools, arriving over several batch windows while earlier batches still
// grow their pools. Each create gets a node of its own, each NodeClass one pool holding exactly
// its creates' nodes, and the cloud is asked far less than once a node.
func TestSixtyCreatesOverSeveralBatchWindowsEachGetTheirOwnNode(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := fast()
			marks := []string{clouds.Mark("DigitalOceanNodeClass", "a", "spec"), clouds.Mark("DigitalOceanNodeClass", "b", "spec"),
				clouds.Mark("DigitalOceanNodeClass", "c", "spec")}
			const n = 60
			got := make([]instance.Instance, n)
			errs := make([]error, n)
			before := b.Cloud.Requests()
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					// A third of them arrive a window or two late, while earlier batches run.
					time.Sleep(time.Duration(i/3%3) * p.BatchWindow)
					got[i], errs[i] = p.Create(context.Background(), target(b, marks[i%len(marks)]))
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			requests := b.Cloud.Requests() - before
			seen := map[string]bool{}
			for i, in := range got {
				if seen[in.Node.ProviderID] {
					t.Errorf("create %d got %s, a node another create got too", i, in.Node.ProviderID)
				}
				seen[in.Node.ProviderID] = true
				if in.Pool.Mark != marks[i%len(marks)] {
					t.Errorf("create %d got a node of the pool marked %s, want %s", i, in.Pool.Mark, marks[i%len(marks)])
				}
			}
			pools := marked(t, b)
			if len(pools) != len(marks) {
				t.Fatalf("%d marked pools, want one a NodeClass: %+v", len(pools), pools)
			}
			for _, pl := range pools {
				if pl.Count != n/len(marks) || len(pl.Nodes) != n/len(marks) {
					t.Errorf("pool %s (mark %s) has count %d and %d nodes, want %d", pl.ID, pl.Mark, pl.Count, len(pl.Nodes), n/len(marks))
				}
			}
			t.Logf("%d requests for %d nodes in %d pools", requests, n, len(pools))
			if requests >= n/2 {
				t.Errorf("%d requests for %d nodes, want fewer than one for two", requests, n)
			}
		})
	}
}
