package pulumiprovider

import (
	"context"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/pkg/errors"
)

// runClusters are the account's clusters, with their pools, from the list of the run ctx
// carries (digitalocean.RunClusters); ok is false when ctx carries no run, and the caller lists
// as it always did.
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
