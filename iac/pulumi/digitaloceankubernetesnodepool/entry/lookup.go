package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// lookup finds the pools of the manifest's nodePoolName in its cluster.
func lookup(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	name := spec.GetNodePoolName()
	search := kinds.Search{Cloud: "DigitalOcean", NoToken: digitaloceanprovider.ErrNoToken, Name: name}
	return search.LookForPool(ctx, resolve, spec.GetCluster(), module.ClusterIDOutput, func(cluster string) (ids []string, err error) {
		named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, name)
		for _, p := range named {
			ids = append(ids, p.ID)
		}
		return ids, err
	})
}
