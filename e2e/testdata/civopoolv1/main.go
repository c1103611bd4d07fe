// Command civopoolv1 registers the Civo node pool of the e2e test the way the previous release's
// program did: under the clusterplane:civo:KubernetesNodePool component, a civo provider in the
// pool's region and civo's own kubernetesNodePool, the node count ignored after creation. The e2e
// test deploys it, then runs the current program on the same stack, which must take the pool
// over through its aliases: nothing deleted, nothing created.
package main

import (
	"os"

	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type component struct {
	pulumi.ResourceState
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		const name = "dev-fra1-workers"
		comp := &component{}
		if err := ctx.RegisterComponentResource("clusterplane:civo:KubernetesNodePool", name, comp); err != nil {
			return err
		}
		p, err := civo.NewProvider(ctx, name, &civo.ProviderArgs{
			Region: pulumi.String("fra1"),
			Token:  pulumi.ToSecret(pulumi.String(os.Getenv("CIVO_TOKEN"))).(pulumi.StringOutput),
		}, pulumi.Parent(comp))
		if err != nil {
			return err
		}
		pool, err := civo.NewKubernetesNodePool(ctx, name, &civo.KubernetesNodePoolArgs{
			ClusterId:        pulumi.String(os.Getenv("CLUSTER_ID")),
			Label:            pulumi.String("workers"),
			Size:             pulumi.String("g4s.kube.medium"),
			NodeCount:        pulumi.Int(2),
			Labels:           pulumi.StringMap{"workload": pulumi.String("apps")},
			Taints:           civo.KubernetesNodePoolTaintArray{},
			PublicIpNodePool: pulumi.Bool(false),
		}, pulumi.Parent(comp), pulumi.Provider(p), pulumi.IgnoreChanges([]string{"nodeCount"}))
		if err != nil {
			return err
		}
		if err := ctx.RegisterResourceOutputs(comp, pulumi.Map{"nodePoolId": pool.ID(), "instanceNames": pool.InstanceNames}); err != nil {
			return err
		}
		ctx.Export("node_pool_id", pool.ID())
		ctx.Export("instance_names", pool.InstanceNames)
		return nil
	})
}
