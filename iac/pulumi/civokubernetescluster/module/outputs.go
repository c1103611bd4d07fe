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

	ClusterID pulumi.StringOutput `pulumi:"clusterId" stack:"cluster_id"`
	// KubeconfigB64 is the cluster's kubeconfig, base64-encoded, a secret. Resource.Kubeconfig
	// is the same as YAML.
	KubeconfigB64     pulumi.StringOutput `pulumi:"kubeconfigB64" stack:"kubeconfig_b64"`
	APIServerEndpoint pulumi.StringOutput `pulumi:"apiServerEndpoint" stack:"api_server_endpoint"`
	MasterIP          pulumi.StringOutput `pulumi:"masterIp" stack:"master_ip"`
	DNSEntry          pulumi.StringOutput `pulumi:"dnsEntry" stack:"dns_entry"`
	FirewallID        pulumi.StringOutput `pulumi:"firewallId" stack:"firewall_id"`
	NetworkID         pulumi.StringOutput `pulumi:"networkId" stack:"network_id"`
	CreatedAt         pulumi.StringOutput `pulumi:"createdAt" stack:"created_at"`
	// Resource is the provider's cluster resource.
	Resource *civo.KubernetesCluster
}

func (c *Cluster) setOutputs(cl *civo.KubernetesCluster) {
	c.Resource = cl
	c.ClusterID = cl.ID().ToStringOutput()
	// Marked here as well as by the provider: mocks and derived outputs must not lose it.
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
