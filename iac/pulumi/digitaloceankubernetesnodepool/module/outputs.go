package module

import (
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Stack output names, as in DigitalOceanKubernetesNodePoolStackOutputs.
const (
	OutputNodePoolID = "node_pool_id"
	OutputNodeIDs    = "node_ids"
	OutputNodeNames  = "node_names"
)

func exportOutputs(ctx *pulumi.Context, np *digitalocean.KubernetesNodePool) {
	ctx.Export(OutputNodePoolID, np.ID())
	ctx.Export(OutputNodeIDs, np.Nodes.ApplyT(func(nodes []digitalocean.KubernetesNodePoolNode) []string {
		return nodeField(nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Id })
	}).(pulumi.StringArrayOutput))
	ctx.Export(OutputNodeNames, np.Nodes.ApplyT(func(nodes []digitalocean.KubernetesNodePoolNode) []string {
		return nodeField(nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Name })
	}).(pulumi.StringArrayOutput))
}

func nodeField(nodes []digitalocean.KubernetesNodePoolNode, field func(digitalocean.KubernetesNodePoolNode) *string) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if v := field(n); v != nil {
			out = append(out, *v)
		}
	}
	return out
}
