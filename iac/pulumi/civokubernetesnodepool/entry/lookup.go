package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// lookup finds the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.CivoKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	name := spec.GetNodePoolName()
	search := kinds.Search{Cloud: "Civo", NoToken: civoprovider.ErrNoToken, Name: name}
	return search.LookForPool(ctx, resolve, spec.GetCluster(), module.ClusterIDOutput, func(cluster string) ([]string, error) {
		exists, err := civoprovider.PoolExists(ctx, input.GetProviderConfig(), spec.GetRegion(), cluster, name)
		if !exists {
			return nil, err
		}
		return []string{cluster + ":" + name}, err
	})
}
