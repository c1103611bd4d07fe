package module

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Cluster is a Civo Kubernetes cluster component and its outputs. The outputs are generated from
// CivoKubernetesClusterStackOutputs (stackoutputs.CivoKubernetesCluster), and cluster.go's
// setOutputs reads them from the provider's resource.
type Cluster struct {
	pulumi.ResourceState
	stackoutputs.CivoKubernetesCluster
	// Resource is the provider's cluster resource. Its Kubeconfig is the KubeconfigB64 output as
	// YAML.
	Resource *civo.KubernetesCluster
}
