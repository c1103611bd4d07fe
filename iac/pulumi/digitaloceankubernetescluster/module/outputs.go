package module

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Cluster is a DigitalOcean Kubernetes cluster component and its outputs. The outputs are
// generated from DigitalOceanKubernetesClusterStackOutputs
// (stackoutputs.DigitalOceanKubernetesCluster), and cluster.go's setOutputs reads them from the
// provider's resource.
type Cluster struct {
	pulumi.ResourceState
	stackoutputs.DigitalOceanKubernetesCluster
	// Resource is the provider's cluster resource, for anything the outputs do not cover.
	Resource *digitalocean.KubernetesCluster
}
