package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// lookup finds the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one. Its stack mark, a node label on Civo (civopool.StackLabel),
// is given as the tag a mark is elsewhere, so that up knows a pool its own create made.
var lookup = kinds.PoolLookup(func(ctx context.Context, input *v1.CivoKubernetesNodePoolStackInput, cluster, name string) ([]kinds.Listed, error) {
	exists, labels, err := civoprovider.PoolNamed(ctx, input.GetProviderConfig(), input.GetTarget().GetSpec().GetRegion(), cluster, name)
	if !exists {
		return nil, err
	}
	listed := kinds.Listed{ID: cluster + ":" + name}
	if m, ok := stackmark.OfLabel(labels[civopool.StackLabel]); ok {
		listed.Tags = []string{m.Tag()}
	}
	return []kinds.Listed{listed}, err
})
