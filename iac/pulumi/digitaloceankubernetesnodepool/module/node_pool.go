package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// settings are New's options applied.
type settings = component.Settings[*digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig]

// nodePool creates the pool in the cluster of id clusterID.
func nodePool(ctx *pulumi.Context, name string, s *settings, spec *v1.DigitalOceanKubernetesNodePoolSpec,
	clusterID pulumi.StringOutput, opts []pulumi.ResourceOption) (*digitalocean.KubernetesNodePool, error) {
	l := newLocals(ctx.Context(), name, s.Metadata, spec)
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
	pool, err := digitalocean.NewKubernetesNodePool(ctx, l.name, args, append(opts, pulumi.IgnoreChanges(l.ignoreChanges))...)
	return pool, errors.Wrap(err, "create node pool")
}

// setOutputs reads the component's outputs from the pool resource.
func (np *NodePool) setOutputs(pool *digitalocean.KubernetesNodePool) {
	np.Resource = pool
	np.NodePoolID = pool.ID().ToStringOutput()
	np.NodeIDs = nodeField(pool.Nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Id })
	np.NodeNames = nodeField(pool.Nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Name })
}

// nodeField is field of each of the pool's nodes, those without it left out.
func nodeField(nodes digitalocean.KubernetesNodePoolNodeArrayOutput, field func(digitalocean.KubernetesNodePoolNode) *string) pulumi.StringArrayOutput {
	return nodes.ApplyT(func(nodes []digitalocean.KubernetesNodePoolNode) []string {
		out := make([]string, 0, len(nodes))
		for _, n := range nodes {
			if v := field(n); v != nil {
				out = append(out, *v)
			}
		}
		return out
	}).(pulumi.StringArrayOutput)
}

func taints(taints []*sharedv1.Taint) digitalocean.KubernetesNodePoolTaintArray {
	return component.Taints[digitalocean.KubernetesNodePoolTaintArray](taints,
		func(key, value, effect string) digitalocean.KubernetesNodePoolTaintInput {
			return digitalocean.KubernetesNodePoolTaintArgs{Key: pulumi.String(key), Value: pulumi.String(value), Effect: pulumi.String(effect)}
		})
}
