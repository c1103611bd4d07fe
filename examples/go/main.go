// Command go is a Go Pulumi program that composes Clusterplane components: a DigitalOcean cluster
// with an autoscaling pool and a tainted GPU pool, and a Civo cluster with a pool. Pools get their
// cluster's id as an output, so each is created after its cluster and no id is written down.
//
// Run it like any Go Pulumi program: `pulumi up` in this folder with DIGITALOCEAN_TOKEN and
// CIVO_TOKEN set. Its test runs it under Pulumi's mocks.
package main

import (
	civoclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	// One DigitalOcean provider for the cluster and its pools; the Civo components create their
	// own, each in its resource's region. The token comes from DIGITALOCEAN_TOKEN.
	do, err := digitalocean.NewProvider(ctx, "digitalocean", &digitalocean.ProviderArgs{})
	if err != nil {
		return err
	}
	platform, err := docluster.New(ctx, "platform", &doclusterv1.DigitalOceanKubernetesClusterSpec{
		ClusterName:       "platform-ams3",
		Region:            "ams3",
		KubernetesVersion: "1.31.1-do.5",
		HighlyAvailable:   true,
		// A small system pool: resizing the default pool replaces the cluster, so workloads go
		// to the pools below.
		DefaultNodePool: &doclusterv1.DigitalOceanKubernetesClusterDefaultNodePool{
			NodePoolName: "system",
			Size:         "s-2vcpu-4gb",
			NodeCount:    2,
		},
	}, docluster.WithProvider(do),
		docluster.WithMetadata(&sharedv1.CloudResourceMetadata{Name: "platform", Env: "prod", Org: "acme"}))
	if err != nil {
		return err
	}
	if _, err := dopool.New(ctx, "platform-workers", &dopoolv1.DigitalOceanKubernetesNodePoolSpec{
		NodePoolName: "workers",
		Size:         "s-4vcpu-8gb",
		NodeCount:    3,
		AutoScale:    true,
		MinNodes:     2,
		MaxNodes:     10,
	}, dopool.WithProvider(do), dopool.WithClusterID(platform.ClusterID)); err != nil {
		return err
	}
	if _, err := dopool.New(ctx, "platform-gpu", &dopoolv1.DigitalOceanKubernetesNodePoolSpec{
		NodePoolName: "gpu",
		Size:         "gpu-h100x1-80gb",
		NodeCount:    1,
		Labels:       map[string]string{"nvidia.com/gpu.present": "true"},
		Taints: []*sharedv1.Taint{
			{Key: "nvidia.com/gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
		},
	}, dopool.WithProvider(do), dopool.WithClusterID(platform.ClusterID)); err != nil {
		return err
	}

	edge, err := civocluster.New(ctx, "edge", &civoclusterv1.CivoKubernetesClusterSpec{
		ClusterName:           "edge-fra1",
		Region:                "fra1",
		KubernetesVersion:     "1.30.5-k3s1",
		Network:               sharedv1.StringValue("8f4a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b"),
		ApiServerAllowedCidrs: []string{"203.0.113.0/24"},
		DefaultNodePool:       &civoclusterv1.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.medium", NodeCount: 3},
	})
	if err != nil {
		return err
	}
	if _, err := civopool.New(ctx, "edge-batch", &civopoolv1.CivoKubernetesNodePoolSpec{
		NodePoolName: "batch",
		Region:       "fra1",
		Size:         "g4s.kube.large",
		NodeCount:    2,
	}, civopool.WithClusterID(edge.ClusterID)); err != nil {
		return err
	}

	ctx.Export("platform_cluster_id", platform.ClusterID)
	ctx.Export("platform_kubeconfig", platform.Kubeconfig)
	ctx.Export("edge_cluster_id", edge.ClusterID)
	ctx.Export("edge_kubeconfig_b64", edge.KubeconfigB64)
	return nil
}
