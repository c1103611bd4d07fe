package pulumiprovider

import (
	"context"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/pkg/errors"
)

// runClusters are the account's clusters, with their pools, from the list of the run ctx
// carries (digitalocean.RunClusters); ok is false when ctx carries no run, and the caller lists
// the account itself.
func runClusters(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig) (clusters []digitalocean.Cluster, ok bool, err error) {
	if runlist.Of(ctx) == nil {
		return nil, false, nil
	}
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, true, errors.Wrap(err, "list DigitalOcean's Kubernetes clusters")
	}
	return digitalocean.RunClusters(ctx, base, token, func(ctx context.Context) ([]digitalocean.Cluster, error) {
		return accountClusters(ctx, cfg)
	})
}

// eachCluster gives each the account's clusters, with their pools, until each returns false:
// from the run's one list when ctx carries a run, else from DigitalOcean's pages, read within
// timeout and only up to the one where each stops (a look-up outside any run, as a program run by
// `pulumi up` in its folder makes).
func eachCluster(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, timeout time.Duration,
	each func(digitalocean.Cluster) bool) error {
	if clusters, ok, err := runClusters(ctx, cfg); ok {
		if err != nil {
			return err
		}
		for _, c := range clusters {
			if !each(c) {
				break
			}
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	api, err := client(cfg)
	if err != nil {
		return err
	}
	return api.WalkClusters(ctx, func(page []digitalocean.Cluster) bool {
		for _, c := range page {
			if !each(c) {
				return false
			}
		}
		return true
	})
}

// accountClusters are every cluster of the account, read page by page: the run's one list.
func accountClusters(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig) ([]digitalocean.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*registryTimeout)
	defer cancel()
	api, err := client(cfg)
	if err != nil {
		return nil, errors.Wrap(err, "list DigitalOcean's Kubernetes clusters")
	}
	return api.Clusters(ctx)
}
