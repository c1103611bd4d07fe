package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// rotate readies a rotation of the manifest's pool: godo against the API the provider config
// names (Resolve's rule, as the provider's), the cluster's kubeconfig from DigitalOcean's
// kubeconfig endpoint, in memory.
func rotate(ctx context.Context, in proto.Message, _ string, resolve kinds.Resolve) (*kinds.Rotation, error) {
	input := in.(*v1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := componentkind.PoolCluster(ctx, resolve, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil {
		return nil, err
	}
	client, err := digitaloceanprovider.Client(input.GetProviderConfig())
	if err != nil {
		return nil, errors.Wrap(err, "a DigitalOcean API client for the rotation")
	}
	tags := labels.Tags(labels.Standard(module.Kind, input.GetTarget().GetMetadata()), spec.GetTags())
	p := digitalocean.Pools{Client: client, Cluster: cluster, New: digitalocean.SurgePoolRequest(spec, tags)}
	return kinds.PoolRotation(p, "digitalocean", digitalocean.PoolNodes(spec), spec.GetRollout(), spec.GetNodePoolName()), nil
}
