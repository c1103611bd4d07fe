package module_test

import (
	"fmt"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceankubernetescluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// A Go Pulumi program creates a cluster and exports its kubeconfig, a secret output. Here the
// program runs under Pulumi's mocks (mockrun.Show), and the example prints what it registered.
func ExampleNew() {
	program := func(ctx *pulumi.Context) error {
		cluster, err := digitaloceankubernetescluster.New(ctx, "prod", &v1.DigitalOceanKubernetesClusterSpec{
			ClusterName:       "prod-fra1",
			Region:            "fra1",
			KubernetesVersion: "1.31.1-do.5",
			DefaultNodePool:   &v1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 2},
		})
		if err != nil {
			return err
		}
		ctx.Export("kubeconfig", cluster.Kubeconfig)
		return nil
	}
	mockrun.Show(program, mockrun.Options{Preview: true}, func(p *mockrun.Result) {
		for _, r := range p.Resources {
			fmt.Println(r.Type, r.Name)
		}
		fmt.Println("kubeconfig secret:", p.Outputs["kubeconfig"].Secret)
	})
	// Output:
	// clusterplane:digitalocean:KubernetesCluster prod
	// digitalocean:index/kubernetesCluster:KubernetesCluster prod
	// pulumi:providers:digitalocean prod
	// kubeconfig secret: true
}

// A spec that breaks rules is refused before anything is registered, with every violation.
func ExampleNew_invalid() {
	var err error
	_, _ = mockrun.Run(func(ctx *pulumi.Context) error {
		_, err = digitaloceankubernetescluster.New(ctx, "prod", &v1.DigitalOceanKubernetesClusterSpec{
			ClusterName:       "prod-fra1",
			Region:            "fra1",
			KubernetesVersion: "latest",
			DefaultNodePool:   &v1.DigitalOceanKubernetesClusterDefaultNodePool{NodeCount: 2},
		})
		return err
	}, mockrun.Options{Preview: true})
	fmt.Println(err)
	// Output:
	// DigitalOceanKubernetesCluster prod: 2 violations:
	//   defaultNodePool.size: value is required
	//   kubernetesVersion: must be a DigitalOcean version slug like 1.31.1-do.5, or with autoUpgrade a minor line like 1.31; latest is not accepted
}
