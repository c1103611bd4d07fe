// Package testbed starts the loopback clouds (pkg/loopback/fakedo, pkg/loopback/fakecivo) in
// the test's process, each with one running cluster holding one pool a clusterplane manifest
// declared, for the provider's tests.
package testbed

import (
	"context"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// Token is what the loopback clouds accept.
const Token = "karpenter-test-token"

// ManifestPool is the name (DigitalOcean) or id (Civo) of the pool a manifest declared.
const ManifestPool = "workers"

// Bed is a loopback cloud with its cluster.
type Bed struct {
	Name    string
	Cloud   clouds.Cloud
	Cluster clouds.Cluster
	// URL is the cloud's API.
	URL string
	// DO and Civo are the fakes; one of them is nil.
	DO   *fakedo.DO
	Civo *fakecivo.Civo
}

// Both are a DigitalOcean and a Civo bed, for tests that run on each cloud.
func Both(t *testing.T) []Bed { return []Bed{DigitalOcean(t), Civo(t)} }

// DigitalOcean is a loopback DigitalOcean with a running cluster "c" in fra1 and a manifest's
// pool of two s-2vcpu-4gb nodes.
func DigitalOcean(t *testing.T) Bed {
	t.Helper()
	f := fakedo.New(t, Token)
	f.Account().SetPrice("s-1vcpu-2gb", 12)
	f.Account().SetPrice("s-2vcpu-4gb", 24)
	f.Account().SetPrice("s-4vcpu-8gb", 48)
	id := f.SeedCluster(godo.KubernetesCluster{Name: "c", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: ManifestPool, Size: "s-2vcpu-4gb", Count: 2}}})
	cloud := clouds.NewDigitalOcean(f.URL(), Token)
	cl, err := cloud.FindCluster(context.Background(), id, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return Bed{Name: "digitalocean", Cloud: cloud, Cluster: cl, URL: f.URL(), DO: f}
}

// Civo is a loopback Civo with a running cluster "c" in lon1 and a manifest's pool of two
// g4s.kube.medium nodes.
func Civo(t *testing.T) Bed {
	t.Helper()
	f := fakecivo.New(t, Token, "lon1")
	id := f.SeedCluster(civogo.KubernetesCluster{Name: "c",
		Pools: []civogo.KubernetesPool{{ID: ManifestPool, Size: "g4s.kube.medium", Count: 2}}})
	cloud := clouds.NewCivo(f.URL(), Token)
	cl, err := cloud.FindCluster(context.Background(), id, "", "lon1")
	if err != nil {
		t.Fatal(err)
	}
	return Bed{Name: "civo", Cloud: cloud, Cluster: cl, URL: f.URL(), Civo: f}
}

// SmallSize is a cheap size each cloud offers.
func (b Bed) SmallSize() string {
	if b.Name == "civo" {
		return "g4s.kube.small"
	}
	return "s-1vcpu-2gb"
}

// Pools are the cluster's pools as the provider reads them.
func (b Bed) Pools(t *testing.T) []clouds.Pool {
	t.Helper()
	pools, err := b.Cloud.Pools(context.Background(), b.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	return pools
}

// Manifest is the manifest's pool.
func (b Bed) Manifest(t *testing.T) clouds.Pool {
	t.Helper()
	for _, p := range b.Pools(t) {
		if p.Name == ManifestPool || p.ID == ManifestPool {
			return p
		}
	}
	t.Fatal("the manifest's pool is gone")
	return clouds.Pool{}
}
