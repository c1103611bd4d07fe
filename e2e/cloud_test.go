//go:build e2e

package e2e_test

import (
	"fmt"

	"github.com/civo/civogo"
	"github.com/digitalocean/godo"
)

// The clusters the examples' pools join by id (examples/*nodepool/*.yaml), which no example
// creates: the tests seed them into their clouds, in the examples' regions.
const (
	civoClusterID    = "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e"
	civoGPUClusterID = "6e2f8a4c-1b3d-4f5a-9c7e-0d1f2a3b4c5d"
	doClusterID      = "b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d"
	doGPUClusterID   = "4d8e2f6a-0b1c-4d3e-9f5a-7b9c1d3e5f7a"
)

// The networks and the VPC the cluster examples join by id (examples/*cluster/*.yaml, examples/go).
var (
	exampleNetworks = map[string]string{ // id: region
		"8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b": "fra1",
		"3c1e0f62-9d4b-4a7e-b8c5-2f6a1d9e0b73": "fra1",
		"5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f": "lon1",
		"8f4a2c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b": "fra1", // examples/go
	}
	exampleVPC = "7b3f9e21-4c6a-4d8b-9e0f-1a2b3c4d5e6f"
)

// seedExamples puts what the examples name by id into the test's clouds, made outside any stack
// as a user's existing clusters and networks are: the clusters the pool examples join, the
// networks and the VPC the cluster examples join.
func (e *env) seedExamples() {
	e.t.Helper()
	for id, region := range exampleNetworks {
		e.civo.Networking().SeedNetwork(id, "example-"+id[:8], region)
	}
	e.do.Account().SeedVPC(exampleVPC, "ams3")
	for id, region := range map[string]string{civoClusterID: "fra1", civoGPUClusterID: "lon1"} {
		e.civo.SeedCluster(civogo.KubernetesCluster{ID: id, Name: "seeded-" + id[:8], NetworkID: e.civo.DefaultNetworkID(region)})
	}
	for _, id := range []string{doClusterID, doGPUClusterID} {
		e.do.SeedCluster(godo.KubernetesCluster{ID: id, Name: "seeded-" + id[:8], RegionSlug: "ams3",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	}
}

// inventory counts what the clouds hold, to compare before and after a test: what a destroy
// left behind shows as a difference.
func (e *env) inventory() string {
	doPools := 0
	for _, c := range e.do.Clusters() {
		doPools += len(c.NodePools)
	}
	return fmt.Sprintf("DigitalOcean: %d clusters, %d pools; Civo: %d clusters, %d pools, %d firewalls",
		len(e.do.Clusters()), doPools, len(e.civo.Clusters()), e.civo.Pools(), len(e.civo.Networking().Firewalls()))
}

// doCluster is the one DigitalOcean cluster the test's cloud holds besides seeded ones: the test
// fails unless there is exactly one named name.
func (e *env) doCluster(name string) godo.KubernetesCluster {
	e.t.Helper()
	c, ok := e.do.ClusterNamed(name)
	if !ok {
		e.t.Fatalf("DigitalOcean has no cluster %s", name)
	}
	return c
}

// doPool is the pool named name of the DigitalOcean cluster with id clusterID.
func (e *env) doPool(clusterID, name string) godo.KubernetesNodePool {
	e.t.Helper()
	p, ok := e.do.PoolNamed(clusterID, name)
	if !ok {
		e.t.Fatalf("DigitalOcean's cluster %s has no pool %s", clusterID, name)
	}
	return p
}
