package digitalocean

import (
	"context"
	"slices"
	"strings"

	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/pkg/errors"
)

// An import of a cluster with several pools needs the default pool tagged (dofacts.DefaultPoolTag
// says why): the write goes through Client, DigitalOcean's one pool client.

// DefaultPoolResult says what EnsureDefaultPool did.
type DefaultPoolResult struct {
	// PoolID is the pool tagged; "" when nothing needed tagging.
	PoolID string
}

// EnsureDefaultPool tags the pool named poolName of cluster clusterID as its default pool when the
// provider could not import the cluster otherwise: several pools and none tagged. One pool (the
// provider tags it itself) or one pool tagged already asks nothing more. Several pools tagged, or
// no pool of that name, is an error that says what to correct; nothing is changed then.
//
// The cluster is read once and the tag sent once: a client without a retry rule (Options{}) asks
// nothing again, since the tag is asked for only when the cluster was just read.
func (c *Client) EnsureDefaultPool(ctx context.Context, clusterID, poolName string) (DefaultPoolResult, error) {
	cl, err := c.Cluster(ctx, clusterID)
	if err != nil {
		return DefaultPoolResult{}, err
	}
	pools := cl.NodePools
	var tagged []string
	for _, p := range pools {
		if slices.Contains(p.Tags, dofacts.DefaultPoolTag) {
			tagged = append(tagged, p.Name)
		}
	}
	switch {
	case len(tagged) > 1:
		return DefaultPoolResult{}, errors.Errorf("DigitalOcean cluster %s has %d pools tagged %s (%s): the provider imports only one "+
			"as the default pool; remove the tag from all but %s", clusterID, len(tagged), dofacts.DefaultPoolTag, strings.Join(tagged, ", "), poolName)
	case len(tagged) == 1 || len(pools) < 2:
		return DefaultPoolResult{}, nil
	}
	for _, p := range pools {
		if p.Name != poolName {
			continue
		}
		// The pool's tags as the cloud has them, plus the one the provider reads: the same request
		// the provider sends for a cluster of one pool.
		if err := c.TagPool(ctx, clusterID, p.ID, append(slices.Clone(p.Tags), dofacts.DefaultPoolTag)); err != nil {
			return DefaultPoolResult{}, errors.Wrapf(err, "tag pool %s of DigitalOcean cluster %s as its default pool", poolName, clusterID)
		}
		return DefaultPoolResult{PoolID: p.ID}, nil
	}
	var names []string
	for _, p := range pools {
		names = append(names, p.Name)
	}
	return DefaultPoolResult{}, errors.Errorf("DigitalOcean cluster %s has no pool named %s (spec.defaultNodePool.nodePoolName); its pools are %s",
		clusterID, poolName, strings.Join(names, ", "))
}
