package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// lookup finds the pools of the manifest's nodePoolName in its cluster.
var lookup = kinds.PoolLookup(func(ctx context.Context, input *v1.DigitalOceanKubernetesNodePoolStackInput, cluster, name string) (out []kinds.Listed, err error) {
	named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, name)
	for _, p := range named {
		out = append(out, kinds.Listed{ID: p.ID, Tags: p.Tags})
	}
	return out, err
})
