package module

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func nodePool(ctx *pulumi.Context, l *locals, clusterID pulumi.StringInput, opts ...pulumi.ResourceOption) (*digitalocean.KubernetesNodePool, error) {
	spec := l.spec
	args := &digitalocean.KubernetesNodePoolArgs{
		ClusterId: clusterID,
		Name:      pulumi.String(spec.GetNodePoolName()),
		Size:      pulumi.String(spec.GetSize()),
		Labels:    pulumi.ToStringMap(spec.GetLabels()),
		Tags:      pulumi.ToStringArray(l.tags),
		Taints:    taints(spec.GetTaints()),
	}
	// Bounds only with autoscaling: the provider rejects them on a fixed-size pool.
	args.NodeCount, args.AutoScale, args.MinNodes, args.MaxNodes = component.PoolSize(spec)
	opts = append(opts, pulumi.IgnoreChanges(l.ignoreChanges))
	np, err := digitalocean.NewKubernetesNodePool(ctx, l.name, args, opts...)
	return np, errors.Wrap(err, "create node pool")
}

func taints(taints []*sharedv1.Taint) digitalocean.KubernetesNodePoolTaintArray {
	return component.Taints[digitalocean.KubernetesNodePoolTaintArray](taints,
		func(key, value, effect string) digitalocean.KubernetesNodePoolTaintInput {
			return digitalocean.KubernetesNodePoolTaintArgs{Key: pulumi.String(key), Value: pulumi.String(value), Effect: pulumi.String(effect)}
		})
}
