// Command oldnames registers the DigitalOcean cluster of examples/digitaloceankubernetescluster/
// minimal.yaml the way the stack programs did before components existed: the provider and the
// cluster at the stack's root, named after metadata.name. The e2e test deploys it, then runs the
// real program on the same stack, which must update it in place through its aliases.
package main

import (
	"os"

	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		p, err := digitalocean.NewProvider(ctx, "dev-fra1", &digitalocean.ProviderArgs{
			Token: pulumi.ToSecret(pulumi.String(os.Getenv("DIGITALOCEAN_TOKEN"))).(pulumi.StringOutput),
		})
		if err != nil {
			return err
		}
		tags := pulumi.StringArray{pulumi.String("resource-kind:DigitalOceanKubernetesCluster"), pulumi.String("resource-name:dev-fra1")}
		_, err = digitalocean.NewKubernetesCluster(ctx, "dev-fra1", &digitalocean.KubernetesClusterArgs{
			Name:                          pulumi.String("dev-fra1"),
			Region:                        pulumi.String("fra1"),
			Version:                       pulumi.String("1.31.1-do.5"),
			Ha:                            pulumi.Bool(false),
			AutoUpgrade:                   pulumi.Bool(false),
			SurgeUpgrade:                  pulumi.Bool(true),
			RegistryIntegration:           pulumi.Bool(false),
			DestroyAllAssociatedResources: pulumi.Bool(false),
			Tags:                          tags,
			NodePool: &digitalocean.KubernetesClusterNodePoolArgs{
				Name:      pulumi.String("default"),
				Size:      pulumi.String("s-2vcpu-4gb"),
				NodeCount: pulumi.Int(2),
				Labels:    pulumi.StringMap{},
				Tags:      tags,
				Taints:    digitalocean.KubernetesClusterNodePoolTaintArray{},
			},
			ControlPlaneFirewall: &digitalocean.KubernetesClusterControlPlaneFirewallArgs{
				Enabled: pulumi.Bool(false), AllowedAddresses: pulumi.StringArray{},
			},
		}, pulumi.Provider(p), pulumi.Protect(true))
		return err
	})
}
