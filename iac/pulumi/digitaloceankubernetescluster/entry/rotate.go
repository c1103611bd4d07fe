package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// rotate readies a rotation of the cluster's default pool (spec.defaultNodePool.rollout): godo
// against the API the provider config names, the cluster's kubeconfig from DigitalOcean's
// kubeconfig endpoint, in memory. The new pool is created as the module's node_pool would be, and
// at its rename takes the tag by which the provider reads the default pool (digitalocean.Pools'
// DefaultPool), so that the cluster keeps its id; the old default pool is the pool tagged now.
func rotate(ctx context.Context, in proto.Message, cluster string, _ kinds.Resolve) (*kinds.Rotation, error) {
	input := in.(*v1.DigitalOceanKubernetesClusterStackInput)
	if cluster == "" {
		return nil, errors.New("the cluster's id is not known: the stack holds no cluster whose default pool could rotate")
	}
	client, err := digitaloceanprovider.Client(input.GetProviderConfig())
	if err != nil {
		return nil, errors.Wrap(err, "a DigitalOcean API client for the rotation")
	}
	spec := input.GetTarget().GetSpec()
	pool := spec.GetDefaultNodePool()
	name, tags := module.DefaultNodePool(ctx, input.GetTarget().GetMetadata(), spec)
	p := digitalocean.Pools{Client: client, Cluster: cluster, New: digitalocean.SurgePoolRequest(pool, tags), DefaultPool: true}
	r := kinds.PoolRotation(p, "digitalocean", digitalocean.PoolNodes(pool), pool.GetRollout(), name)
	r.OldPool = p.Tagged
	return r, nil
}
