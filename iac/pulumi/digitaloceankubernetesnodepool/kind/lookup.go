package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// lookup finds the pools of the manifest's nodePoolName in its cluster.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil || cluster == "" {
		return kinds.NoClusterYet, err
	}
	named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, spec.GetNodePoolName())
	if errors.Is(err, digitaloceanprovider.ErrNoToken) {
		return kinds.NoToken("DigitalOcean"), nil
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
