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
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil || cluster == "" {
		return kinds.NoClusterYet, err
	}
	name := spec.GetNodePoolName()
	search := kinds.Search{Cloud: "DigitalOcean", NoToken: digitaloceanprovider.ErrNoToken, Type: "node pool", Name: name, In: "cluster " + cluster, Where: "cluster " + cluster}
	return search.Look(func() (ids []string, err error) {
		named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, name)
		for _, p := range named {
			ids = append(ids, p.ID)
		}
		return ids, err
	})
}
