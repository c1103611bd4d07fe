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

// Cluster is a Civo Kubernetes cluster component and its outputs.
type Cluster struct {
	pulumi.ResourceState

	ClusterID pulumi.StringOutput
	// Kubeconfig is the cluster's kubeconfig YAML and KubeconfigB64 the same base64-encoded;
	// both are secrets.
	Kubeconfig        pulumi.StringOutput
	KubeconfigB64     pulumi.StringOutput
	APIServerEndpoint pulumi.StringOutput
	MasterIP          pulumi.StringOutput
	DNSEntry          pulumi.StringOutput
	FirewallID        pulumi.StringOutput
	NetworkID         pulumi.StringOutput
	CreatedAt         pulumi.StringOutput
	// Resource is the provider's cluster resource.
	Resource *civo.KubernetesCluster
}

func (c *Cluster) setOutputs(cl *civo.KubernetesCluster) {
	c.Resource = cl
	c.ClusterID = cl.ID().ToStringOutput()
	// Marked here as well as by the provider: mocks and derived outputs must not lose it.
	c.Kubeconfig = pulumi.ToSecret(cl.Kubeconfig).(pulumi.StringOutput)
	c.KubeconfigB64 = pulumi.ToSecret(cl.Kubeconfig.ApplyT(func(k string) string {
		return base64.StdEncoding.EncodeToString([]byte(k))
	})).(pulumi.StringOutput)
	c.APIServerEndpoint = cl.ApiEndpoint
	c.MasterIP = cl.MasterIp
	c.DNSEntry = cl.DnsEntry
	c.FirewallID = cl.FirewallId
	c.NetworkID = cl.NetworkId
	c.CreatedAt = cl.CreatedAt
}

// outputs are the stack outputs by name.
func (c *Cluster) outputs() pulumi.Map {
	return pulumi.Map{
		OutputClusterID:         c.ClusterID,
		OutputKubeconfigB64:     c.KubeconfigB64,
		OutputAPIServerEndpoint: c.APIServerEndpoint,
		OutputMasterIP:          c.MasterIP,
		OutputDNSEntry:          c.DNSEntry,
		OutputFirewallID:        c.FirewallID,
		OutputNetworkID:         c.NetworkID,
		OutputCreatedAt:         c.CreatedAt,
	}
}
