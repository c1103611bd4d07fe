package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// lookup finds the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.CivoKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil || cluster == "" {
		return kinds.NoClusterYet, err
	}
	exists, err := civoprovider.PoolExists(ctx, input.GetProviderConfig(), spec.GetRegion(), cluster, spec.GetNodePoolName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		return kinds.NoToken("Civo"), nil
	}
	if err != nil {
		return kinds.Found{}, errors.Wrapf(err, "look for a node pool %s in cluster %s before creating one", spec.GetNodePoolName(), cluster)
	}
	if !exists {
		return kinds.Found{}, nil
	}
	return kinds.Found{Live: []kinds.Live{{Type: "node pool", Name: spec.GetNodePoolName(), Where: "cluster " + cluster,
		ID: cluster + ":" + spec.GetNodePoolName()}}}, nil
}
