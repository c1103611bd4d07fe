package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/provider/digitaloceanprovider"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// noDigitalOceanToken is what the look-up says when it did not look.
const noDigitalOceanToken = "no DigitalOcean API token to look with"

// noClusterYet is what the look-up says of a pool whose cluster is not there yet.
const noClusterYet = "its cluster's id is not known yet (the referenced stack has no cluster_id output)"

// lookup finds the pools of the manifest's nodePoolName in its cluster.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil || cluster == "" {
		return kinds.Found{Unchecked: noClusterYet}, err
	}
	named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, spec.GetNodePoolName())
	if errors.Is(err, digitaloceanprovider.ErrNoToken) {
		return kinds.Found{Unchecked: noDigitalOceanToken}, nil
	}
	if err != nil {
		return kinds.Found{}, errors.Wrapf(err, "look for a node pool %s in cluster %s before creating one", spec.GetNodePoolName(), cluster)
	}
	var found kinds.Found
	for _, p := range named {
		found.Live = append(found.Live, kinds.Live{Type: "node pool", Name: p.Name, Where: "cluster " + cluster, ID: p.ID})
	}
	return found, nil
}
