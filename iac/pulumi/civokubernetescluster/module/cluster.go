package module

import (
	"encoding/base64"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func cluster(ctx *pulumi.Context, l *locals, networkID, firewallID pulumi.StringInput, opts ...pulumi.ResourceOption) (*civo.KubernetesCluster, error) {
	pool := l.spec.GetDefaultNodePool()
	args := &civo.KubernetesClusterArgs{
		Name:              pulumi.String(l.spec.GetClusterName()),
		Region:            pulumi.String(l.region),
		KubernetesVersion: pulumi.String(l.spec.GetKubernetesVersion()),
		ClusterType:       pulumi.String(l.clusterType),
		Cni:               pulumi.String(l.cni),
		NetworkId:         networkID,
		FirewallId:        firewallID,
		Tags:              pulumi.String(l.tags),
		// Without it the provider leaves the kubeconfig out of state and the output is empty.
		WriteKubeconfig: pulumi.Bool(true),
		// A Civo cluster has exactly one pool; more pools are CivoKubernetesNodePool manifests. Its
		// labels and taints are not sent: the pinned provider drops them (civo#380), so the spec
		// refuses them.
		Pools: &civo.KubernetesClusterPoolsArgs{
			Size:             pulumi.String(pool.GetSize()),
			NodeCount:        pulumi.Int(int(pool.GetNodeCount())),
			PublicIpNodePool: pulumi.Bool(pool.GetPublicIpNodePool()),
		},
	}
	if l.applications != "" {
		args.Applications = pulumi.String(l.applications)
	}
	// Protect makes the engine refuse to delete the cluster, so `pulumi destroy` or a rename
	// cannot take the workloads with it. The created firewall is not protected: the cluster
	// outlives it (firewall_id updates in place) and Civo refuses to delete a firewall in use.
	c, err := civo.NewKubernetesCluster(ctx, l.name, args, append(opts, pulumi.Protect(l.protect), pulumi.IgnoreChanges(l.ignoreChanges))...)
	return c, errors.Wrap(err, "create kubernetes cluster")
}

// setOutputs reads the component's outputs from the cluster resource cl.
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
