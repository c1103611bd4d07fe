package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
	"github.com/pkg/errors"
)

// rotate readies a rotation of the manifest's pool, in cluster (the id componentkind.PoolRotate
// reads from the pool's cluster ref): godo against the API the provider config names (Resolve's
// rule, as the provider's), the cluster's kubeconfig from DigitalOcean's kubeconfig endpoint, in
// memory.
var rotate = componentkind.PoolRotate(func(ctx context.Context, input *v1.DigitalOceanKubernetesNodePoolStackInput, cluster string) (*kinds.Rotation, error) {
	spec := input.GetTarget().GetSpec()
	client, err := digitaloceanprovider.Client(input.GetProviderConfig())
	if err != nil {
		return nil, errors.Wrap(err, "a DigitalOcean API client for the rotation")
	}
	tags := module.Tags(ctx, input.GetTarget().GetMetadata(), spec)
	p := digitalocean.Pools{Client: client, Cluster: cluster, New: digitalocean.SurgePoolRequest(spec, tags)}
	return kinds.PoolRotation(p, "digitalocean", digitalocean.PoolNodes(spec), spec.GetRollout(), spec.GetNodePoolName()), nil
})
