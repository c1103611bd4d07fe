package module

import (
	cpcivo "github.com/clusterplane/clusterplane/sdk/go/clusterplane/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Stack output names, as in CivoKubernetesNodePoolStackOutputs.
const (
	OutputNodePoolID    = "node_pool_id"
	OutputInstanceNames = "instance_names"
)

// NodePool is a Civo Kubernetes node pool component and its outputs. An output's `pulumi` tag is
// its field's JSON name in CivoKubernetesNodePoolStackOutputs; the stack exports it under that
// field's own name (component.StackOutputs).
type NodePool struct {
	pulumi.ResourceState

	NodePoolID    pulumi.StringOutput      `pulumi:"nodePoolId"`
	InstanceNames pulumi.StringArrayOutput `pulumi:"instanceNames"`
	// Resource is the node pool resource, managed by the clusterplane plugin.
	Resource *cpcivo.NodePool
}

func (np *NodePool) setOutputs(pool *cpcivo.NodePool) {
	np.Resource = pool
	np.NodePoolID = pool.ID().ToStringOutput()
	np.InstanceNames = pool.InstanceNames
}
