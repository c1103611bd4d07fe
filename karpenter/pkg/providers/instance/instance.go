// Package instance keeps Karpenter's nodes in managed node pools: a pool per (NodeClass, size,
// spec) that the provider made and marked, found by its mark and never by its name. A create
// raises the pool's count (making the pool for its first node) and tells its node by comparing
// the pool's nodes before and after; the creates that arrive for one pool within BatchWindow
// are one resize. A delete removes exactly its node, and the pool with its last node.
package instance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
)

// Defaults of a Provider's timing.
const (
	// DefaultBatchWindow is how long the first create of a pool waits for others to join it:
	// Karpenter launches a scheduling round's NodeClaims at once, so a second is plenty.
	DefaultBatchWindow = time.Second
	// DefaultPollInterval is how often a grown pool is read until its new nodes are listed.
	DefaultPollInterval = 2 * time.Second
	// DefaultWaitTimeout bounds that wait: DigitalOcean and Civo list a new node within seconds
	// of the resize, long before it runs.
	DefaultWaitTimeout = 2 * time.Minute
)

// ErrNotFound is a node no marked pool holds.
var ErrNotFound = errors.New("no pool of the provider holds the node")

// Instance is a node of a marked pool.
type Instance struct {
	Pool clouds.Pool
	Node clouds.Node
}

// Target is where a create puts its node: the cluster, and the pool spec (its mark, size, labels,
// taints, tags) of the NodeClass.
type Target struct {
	Cloud   clouds.Cloud
	Cluster clouds.Cluster
	Spec    clouds.PoolSpec
}

func (t Target) clusterKey() string { return t.Cloud.Name() + "/" + t.Cluster.ID }
func (t Target) poolKey() string    { return t.clusterKey() + "/" + t.Spec.Mark + "/" + t.Spec.Size }

// Provider is safe for concurrent use.
type Provider struct {
	BatchWindow, PollInterval, WaitTimeout time.Duration
	// Batched, when set, is told each pool write's cloud and how many creates it served (the
	// metrics count them).
	Batched func(cloud string, creates int)

	mu      sync.Mutex
	batches map[string]*batch
	// clusters serialises a cluster's pool writes: a grow and a delete never see each other's
	// half-done work, so no node is taken as new twice and no pool is deleted under a create.
	clusters map[string]*sync.Mutex
}

// batch is the creates of one pool that one resize serves.
type batch struct {
	n     int
	done  chan struct{}
	pool  clouds.Pool
	nodes []clouds.Node
	err   error
}

// New is a provider with the default timing.
func New() *Provider {
	return &Provider{BatchWindow: DefaultBatchWindow, PollInterval: DefaultPollInterval, WaitTimeout: DefaultWaitTimeout,
		batches: map[string]*batch{}, clusters: map[string]*sync.Mutex{}}
}

func (p *Provider) clusterLock(key string) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.clusters[key]
	if !ok {
		l = &sync.Mutex{}
		p.clusters[key] = l
	}
	return l
}

// Create adds one node to t's pool and returns it. The node is made even when ctx ends while
// the batch runs: a node the caller no longer waits for has no NodeClaim, and garbage collection
// deletes it after its grace period.
func (p *Provider) Create(ctx context.Context, t Target) (Instance, error) {
	key := t.poolKey()
	p.mu.Lock()
	b := p.batches[key]
	if b == nil {
		b = &batch{done: make(chan struct{})}
		p.batches[key] = b
		go p.run(key, b, t)
	}
	i := b.n
	b.n++
	p.mu.Unlock()
	select {
	case <-b.done:
	case <-ctx.Done():
		return Instance{}, ctx.Err()
	}
	if b.err != nil {
		return Instance{}, b.err
	}
	if i >= len(b.nodes) {
		return Instance{}, fmt.Errorf("pool %s listed %d new nodes for %d creates", b.pool.ID, len(b.nodes), b.n)
	}
	return Instance{Pool: b.pool, Node: b.nodes[i]}, nil
}

// run waits BatchWindow for more creates, then grows the pool by all of them at once.
func (p *Provider) run(key string, b *batch, t Target) {
	time.Sleep(p.BatchWindow)
	p.mu.Lock()
	delete(p.batches, key)
	n := b.n
	p.mu.Unlock()
	lock := p.clusterLock(t.clusterKey())
	lock.Lock()
	defer lock.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), p.WaitTimeout)
	defer cancel()
	b.pool, b.nodes, b.err = p.grow(ctx, t, n)
	if b.err == nil && p.Batched != nil {
		p.Batched(t.Cloud.Name(), n)
	}
	close(b.done)
}

// grow adds n nodes to t's pool, making it when it is not there, and returns the nodes the pool
// lists now and did not before.
func (p *Provider) grow(ctx context.Context, t Target, n int) (clouds.Pool, []clouds.Node, error) {
	pools, err := t.Cloud.Pools(ctx, t.Cluster)
	if err != nil {
		return clouds.Pool{}, nil, err
	}
	var before []string
	i := slices.IndexFunc(pools, func(pl clouds.Pool) bool { return pl.Mark == t.Spec.Mark && pl.Size == t.Spec.Size })
	var pool clouds.Pool
	if i < 0 {
		spec := t.Spec
		spec.Count = n
		if pool, err = t.Cloud.CreatePool(ctx, t.Cluster, spec); err != nil {
			return clouds.Pool{}, nil, err
		}
	} else {
		pool = pools[i]
		before = providerIDs(pool.Nodes)
		if err := t.Cloud.ResizePool(ctx, t.Cluster, pool, pool.Count+n); err != nil {
			return clouds.Pool{}, nil, err
		}
		pool.Count += n
	}
	for {
		added := newNodes(pool.Nodes, before)
		if len(added) >= n {
			return pool, added[:n], nil
		}
		select {
		case <-ctx.Done():
			return clouds.Pool{}, nil, fmt.Errorf("pool %s listed %d of %d new nodes before the wait ended: %w", pool.ID, len(added), n, ctx.Err())
		case <-time.After(p.PollInterval):
		}
		pools, err := t.Cloud.Pools(ctx, t.Cluster)
		if err != nil {
			return clouds.Pool{}, nil, err
		}
		j := slices.IndexFunc(pools, func(pl clouds.Pool) bool { return pl.ID == pool.ID })
		if j < 0 {
			return clouds.Pool{}, nil, fmt.Errorf("pool %s went away while it grew", pool.ID)
		}
		pool = pools[j]
	}
}

func providerIDs(nodes []clouds.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.ProviderID)
	}
	return out
}

// newNodes are the nodes with a providerID that before does not list, in the pool's order.
func newNodes(nodes []clouds.Node, before []string) []clouds.Node {
	var out []clouds.Node
	for _, n := range nodes {
		if n.ProviderID != "" && !slices.Contains(before, n.ProviderID) {
			out = append(out, n)
		}
	}
	return out
}

// List are the nodes of the cluster's marked pools, but those the cloud is already deleting: to
// Karpenter a node on its way out is gone, so a second Delete does not ask the cloud again.
func (p *Provider) List(ctx context.Context, cloud clouds.Cloud, cluster clouds.Cluster) ([]Instance, error) {
	pools, err := cloud.Pools(ctx, cluster)
	if err != nil {
		return nil, err
	}
	var out []Instance
	for _, pl := range pools {
		if pl.Mark == "" {
			continue
		}
		for _, n := range pl.Nodes {
			if !n.Going {
				out = append(out, Instance{Pool: pl, Node: n})
			}
		}
	}
	return out, nil
}

// Get is the node with providerID in the cluster's marked pools; ErrNotFound when none holds it.
func (p *Provider) Get(ctx context.Context, cloud clouds.Cloud, cluster clouds.Cluster, providerID string) (Instance, error) {
	all, err := p.List(ctx, cloud, cluster)
	if err != nil {
		return Instance{}, err
	}
	for _, in := range all {
		if in.Node.ProviderID == providerID {
			return in, nil
		}
	}
	return Instance{}, ErrNotFound
}

// Delete removes the node with providerID from its marked pool: the pool itself when the node is
// its last, else the node alone (the cloud lowers the count). A node no marked pool holds is
// ErrNotFound, and nothing is touched.
func (p *Provider) Delete(ctx context.Context, cloud clouds.Cloud, cluster clouds.Cluster, providerID string) error {
	lock := p.clusterLock(cloud.Name() + "/" + cluster.ID)
	lock.Lock()
	defer lock.Unlock()
	in, err := p.Get(ctx, cloud, cluster, providerID)
	if err != nil {
		return err
	}
	if in.Pool.Count <= 1 && len(in.Pool.Nodes) <= 1 && !in.Node.Going {
		err = cloud.DeletePool(ctx, cluster, in.Pool)
	} else {
		err = cloud.DeleteNode(ctx, cluster, in.Pool, in.Node)
	}
	if errors.Is(err, clouds.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
