package module

import (
	"encoding/base64"

	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Stack output names, as in CivoKubernetesClusterStackOutputs.
const (
	OutputClusterID         = "cluster_id"
	OutputKubeconfigB64     = "kubeconfig_b64"
	OutputAPIServerEndpoint = "api_server_endpoint"
	OutputMasterIP          = "master_ip"
	OutputDNSEntry          = "dns_entry"
	OutputFirewallID        = "firewall_id"
	OutputNetworkID         = "network_id"
	OutputCreatedAt         = "created_at"
)

func exportOutputs(ctx *pulumi.Context, c *civo.KubernetesCluster) {
	ctx.Export(OutputClusterID, c.ID())
	// Marked here too: an output derived from a secret property must stay secret.
	ctx.Export(OutputKubeconfigB64, pulumi.ToSecret(c.Kubeconfig.ApplyT(func(k string) string {
		return base64.StdEncoding.EncodeToString([]byte(k))
	})))
	ctx.Export(OutputAPIServerEndpoint, c.ApiEndpoint)
	ctx.Export(OutputMasterIP, c.MasterIp)
	ctx.Export(OutputDNSEntry, c.DnsEntry)
	ctx.Export(OutputFirewallID, c.FirewallId)
	ctx.Export(OutputNetworkID, c.NetworkId)
	ctx.Export(OutputCreatedAt, c.CreatedAt)
}
