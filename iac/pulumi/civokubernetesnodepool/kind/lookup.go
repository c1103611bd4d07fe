package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/provider/civoprovider"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// noCivoToken is what the look-up says when it did not look.
const noCivoToken = "no Civo API token to look with"

// noClusterYet is what the look-up says of a pool whose cluster is not there yet.
const noClusterYet = "its cluster's id is not known yet (the referenced stack has no cluster_id output)"

// lookup finds the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.CivoKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil || cluster == "" {
		return kinds.Found{Unchecked: noClusterYet}, err
	}
	exists, err := civoprovider.PoolExists(ctx, input.GetProviderConfig(), spec.GetRegion().String(), cluster, spec.GetNodePoolName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		return kinds.Found{Unchecked: noCivoToken}, nil
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
