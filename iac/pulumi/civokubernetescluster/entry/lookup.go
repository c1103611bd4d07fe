package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// lookup finds the region's clusters of the manifest's clusterName.
var lookup = kinds.ClusterLookup(func(ctx context.Context, input *v1.CivoKubernetesClusterStackInput, region, name string) ([]kinds.Listed, error) {
	named, err := civoprovider.ClustersNamed(ctx, input.GetProviderConfig(), region, name)
	var out []kinds.Listed
	for _, c := range named {
		out = append(out, kinds.Listed{ID: c.ID, Tags: c.Tags})
	}
	return out, err
})
