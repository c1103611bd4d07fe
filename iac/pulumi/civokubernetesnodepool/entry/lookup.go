package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// lookup finds the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one.
var lookup = kinds.PoolLookup(func(ctx context.Context, input *v1.CivoKubernetesNodePoolStackInput, cluster, name string) ([]kinds.Listed, error) {
	exists, err := civoprovider.PoolExists(ctx, input.GetProviderConfig(), input.GetTarget().GetSpec().GetRegion(), cluster, name)
	if !exists {
		return nil, err
	}
	return []kinds.Listed{{ID: cluster + ":" + name}}, err
})
