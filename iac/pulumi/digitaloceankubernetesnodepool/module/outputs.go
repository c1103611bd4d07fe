package module

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// NodePool is a DigitalOcean Kubernetes node pool component and its outputs. The outputs are
// generated from DigitalOceanKubernetesNodePoolStackOutputs
// (stackoutputs.DigitalOceanKubernetesNodePool), and node_pool.go's setOutputs reads them from
// the provider's resource.
type NodePool struct {
	pulumi.ResourceState
	stackoutputs.DigitalOceanKubernetesNodePool
	// Resource is the provider's node pool resource.
	Resource *digitalocean.KubernetesNodePool
}
