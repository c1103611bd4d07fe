package module

import (
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Stack output names, as in DigitalOceanKubernetesClusterStackOutputs.
const (
	OutputClusterID           = "cluster_id"
	OutputClusterURN          = "cluster_urn"
	OutputAPIServerEndpoint   = "api_server_endpoint"
	OutputIPv4Address         = "ipv4_address"
	OutputKubeconfig          = "kubeconfig"
	OutputKubeconfigExpiresAt = "kubeconfig_expires_at"
	OutputDefaultNodePoolID   = "default_node_pool_id"
	OutputVpcUUID             = "vpc_uuid"
)

// Cluster is a DigitalOcean Kubernetes cluster component and its outputs. An output's `pulumi` tag
// is its field's JSON name in DigitalOceanKubernetesClusterStackOutputs; the stack exports it under
// that field's own name (component.StackOutputs).
type Cluster struct {
	pulumi.ResourceState

	ClusterID         pulumi.StringOutput `pulumi:"clusterId"`
	ClusterURN        pulumi.StringOutput `pulumi:"clusterUrn"`
	APIServerEndpoint pulumi.StringOutput `pulumi:"apiServerEndpoint"`
	IPv4Address       pulumi.StringOutput `pulumi:"ipv4Address"`
	// Kubeconfig is the cluster's kubeconfig YAML, a secret. Its token expires at
	// KubeconfigExpiresAt; after that, `pulumi up --refresh` fetches a new one into the outputs.
	Kubeconfig          pulumi.StringOutput `pulumi:"kubeconfig"`
	KubeconfigExpiresAt pulumi.StringOutput `pulumi:"kubeconfigExpiresAt"`
	DefaultNodePoolID   pulumi.StringOutput `pulumi:"defaultNodePoolId"`
	VpcUUID             pulumi.StringOutput `pulumi:"vpcUuid"`
	// Resource is the provider's cluster resource, for anything the outputs above do not cover.
	Resource *digitalocean.KubernetesCluster
}

func (c *Cluster) setOutputs(cl *digitalocean.KubernetesCluster) {
	// The SDK's Index panics on an empty list, which a failed or partial read can produce.
	kubeconfig := cl.KubeConfigs.ApplyT(func(ks []digitalocean.KubernetesClusterKubeConfig) digitalocean.KubernetesClusterKubeConfig {
		if len(ks) == 0 {
			return digitalocean.KubernetesClusterKubeConfig{}
		}
		return ks[0]
	}).(digitalocean.KubernetesClusterKubeConfigOutput)
	c.Resource = cl
	c.ClusterID = cl.ID().ToStringOutput()
	c.ClusterURN = cl.ClusterUrn
	c.APIServerEndpoint = cl.Endpoint
	c.IPv4Address = cl.Ipv4Address
	// Marked here as well as by the provider: mocks and derived outputs must not lose it.
	c.Kubeconfig = pulumi.ToSecret(kubeconfig.RawConfig().Elem()).(pulumi.StringOutput)
	// The provider marks all of kubeConfigs secret; the expiry time is not, and is what tells
	// users when to run `pulumi up --refresh`.
	c.KubeconfigExpiresAt = pulumi.Unsecret(kubeconfig.ExpiresAt().Elem()).(pulumi.StringOutput)
	c.DefaultNodePoolID = cl.NodePool.Id().Elem()
	c.VpcUUID = cl.VpcUuid
}
