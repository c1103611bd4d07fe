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

// Cluster is a Civo Kubernetes cluster component and its outputs. An output's `pulumi` tag is its
// field's JSON name in CivoKubernetesClusterStackOutputs; the stack exports it under that field's
// own name (component.StackOutputs).
type Cluster struct {
	pulumi.ResourceState

	ClusterID pulumi.StringOutput `pulumi:"clusterId"`
	// KubeconfigB64 is the cluster's kubeconfig, base64-encoded, a secret. Resource.Kubeconfig
	// is the same as YAML.
	KubeconfigB64     pulumi.StringOutput `pulumi:"kubeconfigB64"`
	APIServerEndpoint pulumi.StringOutput `pulumi:"apiServerEndpoint"`
	MasterIP          pulumi.StringOutput `pulumi:"masterIp"`
	DNSEntry          pulumi.StringOutput `pulumi:"dnsEntry"`
	FirewallID        pulumi.StringOutput `pulumi:"firewallId"`
	NetworkID         pulumi.StringOutput `pulumi:"networkId"`
	CreatedAt         pulumi.StringOutput `pulumi:"createdAt"`
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
