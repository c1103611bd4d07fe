package cloudprovider

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// DefaultOrphanGrace is how long a marked node without a NodeClaim is left before it is deleted:
// far longer than a create takes to hand its node to its NodeClaim.
const DefaultOrphanGrace = 10 * time.Minute

// GarbageCollector deletes what a crash or a lost answer left behind: nodes of marked pools that
// no NodeClaim names after Grace (a controller killed between a resize and its NodeClaim's
// update leaves one), and marked pools left with no node. A NodeClaim whose node the cloud lost
// is Karpenter core's to end: its garbage collection sees the node missing from List.
type GarbageCollector struct {
	Provider *CloudProvider
	Grace    time.Duration
	Interval time.Duration
	Now      func() time.Time
	// Collected, when set, is told the cloud of each node deleted (the metrics count them).
	Collected func(cloud string)

	mu sync.Mutex
	// orphans are when each providerID was first seen without a NodeClaim. It is in memory: a
	// restart starts each grace period again, which only ever waits longer.
	orphans map[string]time.Time
}

// NewGarbageCollector collects every interval after grace.
func NewGarbageCollector(p *CloudProvider, grace, interval time.Duration) *GarbageCollector {
	return &GarbageCollector{Provider: p, Grace: grace, Interval: interval, Now: time.Now, orphans: map[string]time.Time{}}
}

// Register runs Collect every Interval while the manager runs (and is the leader).
func (g *GarbageCollector) Register(_ context.Context, m manager.Manager) error {
	return m.Add(manager.RunnableFunc(func(ctx context.Context) error {
		t := time.NewTicker(g.Interval)
		defer t.Stop()
		for {
			if err := g.Collect(ctx); err != nil {
				log.FromContext(ctx).Error(err, "garbage collection of marked nodes")
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
		}
	}))
}

// Collect deletes the orphans whose grace has passed and the empty marked pools.
func (g *GarbageCollector) Collect(ctx context.Context) error {
	p := g.Provider
	var claims karpv1.NodeClaimList
	if err := p.kube.List(ctx, &claims); err != nil {
		return fmt.Errorf("list NodeClaims: %w", err)
	}
	claimed := map[string]bool{}
	for _, c := range claims.Items {
		claimed[c.Status.ProviderID] = true
	}
	all, err := p.clusters(ctx)
	if err != nil {
		return err
	}
	now := g.Now()
	seen := map[string]bool{}
	var errs []error
	for name, cls := range all {
		cloud := p.clouds[name]
		for _, cl := range cls {
			pools, err := cloud.Pools(ctx, cl)
			if errors.Is(err, clouds.ErrClusterNotFound) {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, g.collectPools(ctx, cloud, cl, pools, claimed, seen, now)...)
		}
	}
	g.mu.Lock()
	for id := range g.orphans {
		if !seen[id] {
			delete(g.orphans, id)
		}
	}
	g.mu.Unlock()
	return errors.Join(errs...)
}

// collectPools deletes the cluster's empty marked pools and its orphans past their grace, and
// notes the orphans still within it in seen.
func (g *GarbageCollector) collectPools(ctx context.Context, cloud clouds.Cloud, cl clouds.Cluster, pools []clouds.Pool,
	claimed, seen map[string]bool, now time.Time) []error {
	var errs []error
	for _, pl := range pools {
		if pl.Mark == "" {
			continue
		}
		if pl.Count == 0 && len(pl.Nodes) == 0 {
			if err := cloud.DeletePool(ctx, cl, pl); err != nil && !errors.Is(err, clouds.ErrNotFound) {
				errs = append(errs, err)
			}
			continue
		}
		for _, n := range pl.Nodes {
			if n.ProviderID == "" || claimed[n.ProviderID] {
				continue
			}
			seen[n.ProviderID] = true
			g.mu.Lock()
			first, ok := g.orphans[n.ProviderID]
			if !ok {
				g.orphans[n.ProviderID] = now
				first = now
			}
			g.mu.Unlock()
			if now.Sub(first) < g.Grace {
				continue
			}
			log.FromContext(ctx).Info("deleting a marked node no NodeClaim names", "providerID", n.ProviderID, "pool", pl.ID)
			err := g.Provider.instances.Delete(ctx, cloud, cl, n.ProviderID)
			if err != nil && !errors.Is(err, instance.ErrNotFound) && !errors.Is(err, clouds.ErrNotFound) {
				errs = append(errs, err)
			}
			if err == nil && g.Collected != nil {
				g.Collected(cloud.Name())
			}
		}
	}
	return errs
}
