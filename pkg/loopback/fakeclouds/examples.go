package fakeclouds

import (
	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// What the examples in examples/ name by id and no example creates, as a user's existing
// clusters and networks: the clusters the node pool examples join, the networks and the VPC the
// cluster examples join (the same as e2e/cloud_test.go seeds).
const (
	ExampleCivoCluster    = "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e"
	ExampleCivoGPUCluster = "6e2f8a4c-1b3d-4f5a-9c7e-0d1f2a3b4c5d"
	ExampleDOCluster      = "b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d"
	ExampleDOGPUCluster   = "4d8e2f6a-0b1c-4d3e-9f5a-7b9c1d3e5f7a"
	ExampleVPC            = "7b3f9e21-4c6a-4d8b-9e0f-1a2b3c4d5e6f"
)

var exampleNetworks = []struct{ id, region string }{
	{"8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b", "fra1"},
	{"3c1e0f62-9d4b-4a7e-b8c5-2f6a1d9e0b73", "fra1"},
	{"5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f", "lon1"},
	{"8f4a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b", "fra1"}, // examples/go
}

// civoExamples puts into a new Civo what the examples name by id, so that each deploys.
func civoExamples(civo *fakecivo.Civo) {
	for _, n := range exampleNetworks {
		civo.Networking().SeedNetwork(n.id, "example-"+n.id[:8], n.region)
	}
	for _, cl := range []struct{ id, region string }{{ExampleCivoCluster, "fra1"}, {ExampleCivoGPUCluster, "lon1"}} {
		civo.SeedCluster(civogo.KubernetesCluster{ID: cl.id, Name: "example-" + cl.id[:8], NetworkID: civo.DefaultNetworkID(cl.region)})
	}
}

// doExamples puts into a new DigitalOcean what the examples name by id, so that each deploys.
func doExamples(do *fakedo.DO) {
	do.Account().SeedVPC(ExampleVPC, "ams3")
	for _, id := range []string{ExampleDOCluster, ExampleDOGPUCluster} {
		do.SeedCluster(godo.KubernetesCluster{ID: id, Name: "example-" + id[:8], RegionSlug: "ams3",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	}
}
