package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// lookup finds the account's clusters of the manifest's clusterName in its region: DigitalOcean
// lists them account-wide.
var lookup = kinds.ClusterLookup(func(ctx context.Context, input *v1.DigitalOceanKubernetesClusterStackInput, region, name string) (out []kinds.Listed, err error) {
	named, err := digitaloceanprovider.ClustersNamed(ctx, input.GetProviderConfig(), name)
	for _, c := range named {
		if c.Region == region {
			out = append(out, kinds.Listed{ID: c.ID, Tags: c.Tags})
		}
	}
	return out, err
})
