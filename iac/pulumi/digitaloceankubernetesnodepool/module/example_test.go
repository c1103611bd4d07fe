package module_test

import (
	"fmt"

	clusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceankubernetescluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	digitaloceankubernetesnodepool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// A pool joins a cluster created in the same program: WithClusterID takes the cluster's id as an
// output, so the pool is created after the cluster and no id is written down.
func ExampleWithClusterID() {
	program := func(ctx *pulumi.Context) error {
		// The cluster is only what the pool joins here: ExampleNew in its module shows one.
		cluster, err := digitaloceankubernetescluster.New(ctx, "prod", &clusterv1.DigitalOceanKubernetesClusterSpec{ClusterName: "prod-fra1", Region: "fra1",
			KubernetesVersion: "1.31.1-do.5", DefaultNodePool: &clusterv1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 1}})
		if err != nil {
			return err
		}
		_, err = digitaloceankubernetesnodepool.New(ctx, "prod-workers", &v1.DigitalOceanKubernetesNodePoolSpec{
			NodePoolName: "workers",
			Size:         "s-4vcpu-8gb",
			AutoScale:    true,
			MinNodes:     1,
			MaxNodes:     5,
		}, digitaloceankubernetesnodepool.WithClusterID(cluster.ClusterID))
		return err
	}
	mockrun.Show(program, mockrun.Options{}, func(p *mockrun.Result) {
		pool, _ := p.Find("digitalocean:index/kubernetesNodePool:KubernetesNodePool", "prod-workers")
		fmt.Println("clusterId:", pool.Inputs["clusterId"])
		fmt.Println("dependsOn:", pool.DependsOn)
		fmt.Println("ignoreChanges:", pool.IgnoreChanges)
	})
	// Output:
	// clusterId: prod-id
	// dependsOn: [digitalocean:index/kubernetesCluster:KubernetesCluster::prod]
	// ignoreChanges: [nodeCount]
}
