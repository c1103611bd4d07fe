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

// NodePool is a DigitalOcean Kubernetes node pool component and its outputs. An output's `pulumi`
// tag is its field's JSON name in DigitalOceanKubernetesNodePoolStackOutputs; the stack exports it
// under that field's own name (component.StackOutputs).
type NodePool struct {
	pulumi.ResourceState

	NodePoolID pulumi.StringOutput      `pulumi:"nodePoolId"`
	NodeIDs    pulumi.StringArrayOutput `pulumi:"nodeIds"`
	NodeNames  pulumi.StringArrayOutput `pulumi:"nodeNames"`
	// Resource is the provider's node pool resource.
	Resource *digitalocean.KubernetesNodePool
}

func (np *NodePool) setOutputs(pool *digitalocean.KubernetesNodePool) {
	np.Resource = pool
	np.NodePoolID = pool.ID().ToStringOutput()
	np.NodeIDs = nodeField(pool.Nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Id })
	np.NodeNames = nodeField(pool.Nodes, func(n digitalocean.KubernetesNodePoolNode) *string { return n.Name })
}

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
