package module

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
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
	if spec.GetNodeCount() > 0 {
		args.NodeCount = pulumi.Int(int(spec.GetNodeCount()))
	}
	// Bounds only with autoscaling: the provider rejects them on a fixed-size pool.
	if spec.GetAutoScale() {
		args.AutoScale = pulumi.Bool(true)
		args.MinNodes = pulumi.Int(int(spec.GetMinNodes()))
		args.MaxNodes = pulumi.Int(int(spec.GetMaxNodes()))
	}
	opts = append(opts, pulumi.IgnoreChanges(l.ignoreChanges))
	np, err := digitalocean.NewKubernetesNodePool(ctx, l.name, args, opts...)
	return np, errors.Wrap(err, "create node pool")
}

func taints(taints []*sharedv1.Taint) digitalocean.KubernetesNodePoolTaintArray {
	out := digitalocean.KubernetesNodePoolTaintArray{}
	for _, t := range taints {
		out = append(out, digitalocean.KubernetesNodePoolTaintArgs{
			Key:    pulumi.String(t.GetKey()),
			Value:  pulumi.String(t.GetValue()),
			Effect: pulumi.String(t.GetEffect().String()),
		})
	}
	return out
}
