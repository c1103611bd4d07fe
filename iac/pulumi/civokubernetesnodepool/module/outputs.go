package module

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	cpcivo "github.com/clusterplane/clusterplane/sdk/go/clusterplane/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// NodePool is a Civo Kubernetes node pool component and its outputs. The outputs are generated
// from CivoKubernetesNodePoolStackOutputs (stackoutputs.CivoKubernetesNodePool), and
// node_pool.go's setOutputs reads them from the pool resource.
type NodePool struct {
	pulumi.ResourceState
	stackoutputs.CivoKubernetesNodePool
	// Resource is the node pool resource, managed by the clusterplane plugin.
	Resource *cpcivo.NodePool
}
