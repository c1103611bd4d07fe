package pulumiprovider

import (
	"context"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/pkg/errors"
)

// Named is a cluster or node pool of the account: its id, name, (for a cluster) region, and tags.
type Named struct {
	ID, Name, Region string
	Tags             []string
}

// ClustersNamed are the account's clusters named name, in every region, read page by page: a
// create that DigitalOcean carried out but answered with a 5xx is retried by the provider's
// client, and the account then holds several of one name. ErrNoToken without a token.
func ClustersNamed(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, name string) ([]Named, error) {
	var out []Named
	err := eachCluster(ctx, cfg, 3*registryTimeout, func(c digitalocean.Cluster) bool {
		if c.Name == name {
			out = append(out, Named{ID: c.ID, Name: c.Name, Region: c.Region, Tags: c.Tags})
		}
		return true
	})
	return out, err
}

// PoolsNamed are the node pools named name of the cluster with id clusterID; none when the
// cluster does not exist.
func PoolsNamed(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, clusterID, name string) ([]Named, error) {
	if clusters, ok, err := runClusters(ctx, cfg); ok && err == nil {
		// The run's list holds each cluster's pools; those of a cluster it lists with its pools
		// left out, or does not list, are asked for below.
		for _, c := range clusters {
			if c.ID == clusterID && !c.PoolsLeftOut() {
				return poolsNamed(c.NodePools, name), nil
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*registryTimeout)
	defer cancel()
	api, err := client(cfg)
	if err != nil {
		return nil, errors.Wrapf(err, "list the node pools of DigitalOcean cluster %s", clusterID)
	}
	pools, err := api.NodePools(ctx, clusterID)
	if cloudapi.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return poolsNamed(pools, name), nil
}

// poolsNamed are the pools of pools named name.
func poolsNamed(pools []digitalocean.NodePool, name string) []Named {
	var out []Named
	for _, p := range pools {
		if p.Name == name {
			out = append(out, Named{ID: p.ID, Name: p.Name, Tags: p.Tags})
		}
	}
	return out
}
