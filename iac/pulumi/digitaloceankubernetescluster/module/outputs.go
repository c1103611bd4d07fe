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

func exportOutputs(ctx *pulumi.Context, c *digitalocean.KubernetesCluster) {
	kubeconfig := c.KubeConfigs.Index(pulumi.Int(0))
	ctx.Export(OutputClusterID, c.ID())
	ctx.Export(OutputClusterURN, c.ClusterUrn)
	ctx.Export(OutputAPIServerEndpoint, c.Endpoint)
	ctx.Export(OutputIPv4Address, c.Ipv4Address)
	// Marked here as well as by AdditionalSecretOutputs: an output derived from a secret
	// property must stay secret whatever the engine does.
	ctx.Export(OutputKubeconfig, pulumi.ToSecret(kubeconfig.RawConfig()))
	ctx.Export(OutputKubeconfigExpiresAt, kubeconfig.ExpiresAt())
	ctx.Export(OutputDefaultNodePoolID, c.NodePool.Id())
	ctx.Export(OutputVpcUUID, c.VpcUuid)
}
