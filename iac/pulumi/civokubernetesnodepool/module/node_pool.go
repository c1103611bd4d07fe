package module

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// nodePool creates the pool. It has no region argument: the provider in opts carries the
// region. min_nodes and max_nodes are not sent either: Civo's provider has no such arguments, the
// cluster autoscaler takes them as its --nodes flag.
func nodePool(ctx *pulumi.Context, l *locals, clusterID pulumi.StringInput, opts ...pulumi.ResourceOption) (*civo.KubernetesNodePool, error) {
	spec := l.spec
	np, err := civo.NewKubernetesNodePool(ctx, l.name, &civo.KubernetesNodePoolArgs{
		ClusterId:        clusterID,
		Label:            pulumi.String(spec.GetNodePoolName()),
		Size:             pulumi.String(spec.GetSize()),
		NodeCount:        pulumi.Int(int(spec.GetNodeCount())),
		Labels:           pulumi.ToStringMap(spec.GetLabels()),
		Taints:           taints(spec.GetTaints()),
		PublicIpNodePool: pulumi.Bool(spec.GetPublicIpNodePool()),
	}, append(opts, pulumi.IgnoreChanges(l.ignoreChanges))...)
	return np, errors.Wrap(err, "create node pool")
}

func taints(taints []*sharedv1.Taint) civo.KubernetesNodePoolTaintArray {
	out := civo.KubernetesNodePoolTaintArray{}
	for _, t := range taints {
		out = append(out, civo.KubernetesNodePoolTaintArgs{
			Key:    pulumi.String(t.GetKey()),
			Value:  pulumi.String(t.GetValue()),
			Effect: pulumi.String(t.GetEffect().String()),
		})
	}
	return out
}
