// This file is DigitalOcean's node pool API for one cluster as a rotation asks it
// (pkg/change/rotation's Cloud, less the node selector): find a pool by name, create the surge pool, delete the old pool and wait
// until it is gone, rename the surge pool, and wait until a pool's nodes run. Both DigitalOcean
// kinds use it: a DigitalOceanKubernetesNodePool's pool, and a DigitalOceanKubernetesCluster's
// default pool, whose new pool also takes the tag by which the provider finds the default pool
// (DefaultPool).

package digitalocean

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// MarkTag is the prefix of the tag a pool rotation marks the pools it creates with, followed by
// the rotation's mark (Mark): "clusterplane-rotation:<stack>-<id>".
// DigitalOcean tags allow letters, digits, '-', '_' and ':'. Rename drops it once the rotation is
// done, so that the provider's read of the pool's tags finds only the manifest's.
const MarkTag = "clusterplane-rotation:"

// GoneTimeout is how long a deleted pool may stay listed.
const GoneTimeout = 10 * time.Minute

// Poll is how often DigitalOcean is asked whether a pool's nodes run or a deleted pool is gone;
// a variable so that tests need not wait.
var Poll = 2 * time.Second

// Pools is DigitalOcean's pool API for cluster Cluster, over DigitalOcean's one pool client
// (pools.go), whose create is sent once.
type Pools struct {
	Client  *Client
	Cluster string
	// New is how the surge pool is created, as the kind's module would create the pool: size,
	// count or autoscaling bounds, labels, taints, tags. Create sets its name.
	New PoolRequest
	// DefaultPool: the pool rotated is the cluster's default pool. Rename then also tags the new
	// pool dofacts.DefaultPoolTag, which the DigitalOcean provider's read of the cluster looks for among
	// the cluster's pools (resourceDigitalOceanKubernetesClusterRead in
	// terraform-provider-digitalocean v2.75.0): tagged, the new pool is read as the cluster's
	// node_pool and the cluster keeps its id. The old pool, which carried the tag, is deleted
	// before, so that one pool only carries it.
	DefaultPool bool
}

// Named is the cluster's pool of that name, nil when there is none (names are unique in a cluster).
func (p Pools) Named(ctx context.Context, name string) (*NodePool, error) {
	list, err := p.pools(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].Name == name {
			return &list[i], nil
		}
	}
	return nil, nil
}

// pools are every pool of the cluster.
func (p Pools) pools(ctx context.Context) ([]NodePool, error) {
	return p.Client.NodePools(ctx, p.Cluster)
}

// Tagged is the id of the cluster's pool that carries dofacts.DefaultPoolTag: the default pool as the
// provider reads it. An error when none or several do: the provider could not tell.
func (p Pools) Tagged(ctx context.Context) (string, error) {
	list, err := p.pools(ctx)
	if err != nil {
		return "", err
	}
	var ids, names []string
	for _, pool := range list {
		if slices.Contains(pool.Tags, dofacts.DefaultPoolTag) {
			ids, names = append(ids, pool.ID), append(names, pool.Name)
		}
	}
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		return "", errors.Errorf("no node pool of cluster %s carries the tag %s: the provider cannot tell its default pool",
			p.Cluster, dofacts.DefaultPoolTag)
	}
	return "", errors.Errorf("pools %s of cluster %s all carry the tag %s: the provider reads only one as the default pool; "+
		"remove the tag from all but one", strings.Join(names, ", "), p.Cluster, dofacts.DefaultPoolTag)
}

// Find is the id of the cluster's pool named name that carries mark's tag; a
// *rotation.ForeignPoolError when the pool of that name does not carry it.
func (p Pools) Find(ctx context.Context, name, mark string) (string, error) {
	pool, err := p.Named(ctx, name)
	if err != nil || pool == nil {
		return "", err
	}
	if mark == "" || !slices.Contains(pool.Tags, MarkTag+mark) {
		return "", &rotation.ForeignPoolError{Cluster: p.Cluster, Name: name, ID: pool.ID}
	}
	return pool.ID, nil
}

// Create creates the surge pool, New named name and tagged with mark.
func (p Pools) Create(ctx context.Context, name, mark string) (string, error) {
	req := p.New
	req.Name = name
	// The surge pool must not carry the default pool's tag while the old one does: the provider
	// would find two default pools.
	req.Tags = slices.DeleteFunc(slices.Clone(req.Tags), func(t string) bool { return t == dofacts.DefaultPoolTag })
	req.Tags = append(req.Tags, MarkTag+mark)
	pool, err := p.Client.CreatePool(ctx, p.Cluster, req)
	if err != nil {
		return "", errors.Wrapf(err, "create node pool %s in cluster %s", name, p.Cluster)
	}
	return pool.ID, nil
}

// Marked are the cluster's pools that carry a rotation's mark tag.
func (p Pools) Marked(ctx context.Context) ([]rotation.MarkedPool, error) {
	list, err := p.pools(ctx)
	if err != nil {
		return nil, err
	}
	var out []rotation.MarkedPool
	for _, pool := range list {
		for _, t := range pool.Tags {
			if text, ok := strings.CutPrefix(t, MarkTag); ok {
				if m, ok := rotation.ParseMark(text); ok {
					out = append(out, rotation.MarkedPool{ID: pool.ID, Name: pool.Name, Mark: m})
				}
			}
		}
	}
	return out, nil
}

// Delete deletes the pool and waits until DigitalOcean no longer lists it, so that its name is
// free for the surge pool's rename.
func (p Pools) Delete(ctx context.Context, id string) error {
	err := p.Client.DeletePool(ctx, p.Cluster, id)
	if err != nil && !cloudapi.IsNotFound(err) {
		return errors.Wrapf(err, "delete node pool %s of cluster %s", id, p.Cluster)
	}
	ctx, cancel := context.WithTimeout(ctx, GoneTimeout)
	defer cancel()
	for {
		_, err := p.Client.Pool(ctx, p.Cluster, id)
		if cloudapi.IsNotFound(err) {
			return nil
		}
		if err != nil && ctx.Err() == nil {
			return errors.Wrapf(err, "read node pool %s of cluster %s", id, p.Cluster)
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("node pool %s of cluster %s still listed %s after its delete", id, p.Cluster, GoneTimeout)
		case <-time.After(Poll):
		}
	}
}

// Rename renames the pool in place; DigitalOcean's update takes the pool's count with its name.
// It drops the rotation's mark tag, and for the default pool adds dofacts.DefaultPoolTag.
func (p Pools) Rename(ctx context.Context, id, name string) error {
	pool, err := p.Client.Pool(ctx, p.Cluster, id)
	if err != nil {
		return errors.Wrapf(err, "read node pool %s of cluster %s", id, p.Cluster)
	}
	tagged := !p.DefaultPool || slices.Contains(pool.Tags, dofacts.DefaultPoolTag)
	marked := slices.ContainsFunc(pool.Tags, func(t string) bool { return strings.HasPrefix(t, MarkTag) })
	if pool.Name == name && tagged && !marked {
		return nil
	}
	req := PoolUpdate{Name: name, Count: pool.Count}
	if !tagged || marked {
		// The pool's tags as they are but those DigitalOcean gives every pool itself (k8s,
		// k8s:<cluster>, k8s:worker) and the rotation's mark, plus the default pool's: what the
		// provider sends when it updates the default pool (digitaloceanKubernetesNodePoolUpdate
		// with the tag). The manifest's own tags (labels.Standard's at least) are always there,
		// so the list is never empty, which the update would leave out and so keep the mark.
		for _, t := range pool.Tags {
			if t != "k8s" && !strings.HasPrefix(t, "k8s:") && !strings.HasPrefix(t, MarkTag) && t != dofacts.DefaultPoolTag {
				req.Tags = append(req.Tags, t)
			}
		}
		if p.DefaultPool {
			req.Tags = append(req.Tags, dofacts.DefaultPoolTag)
		}
	}
	if _, err := p.Client.UpdatePool(ctx, p.Cluster, id, req); err != nil {
		if p.DefaultPool {
			return errors.Wrapf(err, "rename node pool %s of cluster %s to %s and tag it %s", id, p.Cluster, name, dofacts.DefaultPoolTag)
		}
		return errors.Wrapf(err, "rename node pool %s of cluster %s to %s", id, p.Cluster, name)
	}
	return nil
}

// DeleteCommand is doctl's command that deletes pool id of the cluster.
func (p Pools) DeleteCommand(id string) string {
	return "doctl kubernetes cluster node-pool delete " + p.Cluster + " " + id
}

// WaitRunning waits until DigitalOcean reports every node of the pool named name running.
func (p Pools) WaitRunning(ctx context.Context, name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := ""
	for {
		// The pool is found by name once, then read by id: DigitalOcean's answer for one pool is
		// what the provider itself polls.
		var pool *NodePool
		var err error
		if id == "" {
			if pool, err = p.Named(ctx, name); pool != nil {
				id = pool.ID
			} else if err == nil {
				// Created before this wait began: gone means deleted outside clusterplane, and
				// waiting for it would only run out the timeout.
				return errors.Errorf("node pool %s of cluster %s is not in the cloud: deleted outside clusterplane? "+
					"Delete what is left of the rotation there, or put the pool back, before up again", name, p.Cluster)
			}
		}
		if id != "" {
			var read NodePool
			if read, err = p.Client.Pool(ctx, p.Cluster, id); err == nil {
				pool = &read
			}
		}
		if err != nil && ctx.Err() == nil {
			return errors.Wrapf(err, "read node pool %s of cluster %s", name, p.Cluster)
		}
		if pool != nil && running(pool) {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("node pool %s of cluster %s: not every node running after %s", name, p.Cluster, timeout)
		case <-time.After(Poll):
		}
	}
}

// running tells whether every node of the pool runs, and it has its count of them.
func running(pool *NodePool) bool {
	if len(pool.Nodes) < int(pool.Count) {
		return false
	}
	for _, n := range pool.Nodes {
		if n.Status.State != "running" {
			return false
		}
	}
	return true
}
