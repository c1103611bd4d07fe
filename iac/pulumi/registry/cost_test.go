package registry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
)

// The estimates adopt paces by are the requests counted on the loopback cloud: at 3 clusters by
// the e2e trace (TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout), at 100
// by bench/takeover.sh (2,100 reads and 100 writes for 100 clusters and 100 pools).
func TestTheDigitalOceanKindsEstimateTheRequestsAnAdoptWasCountedSending(t *testing.T) {
	for _, tt := range []struct {
		kind     string
		clusters int
		want     int
	}{
		{kind: "DigitalOceanKubernetesCluster", clusters: 3, want: 10},
		{kind: "DigitalOceanKubernetesCluster", clusters: 100, want: 10},
		{kind: "DigitalOceanKubernetesCluster", clusters: 201, want: 12},
		{kind: "DigitalOceanKubernetesNodePool", clusters: 3, want: 4},
		{kind: "DigitalOceanKubernetesNodePool", clusters: 100, want: 12},
		{kind: "DigitalOceanKubernetesNodePool", clusters: 101, want: 14},
	} {
		k, ok := registry.Kinds().ByName(tt.kind)
		if !ok || k.Cost == nil {
			t.Fatalf("%s has no adopt cost", tt.kind)
		}
		if got := k.Cost.Adopt(tt.clusters); got != tt.want {
			t.Errorf("%s in an account of %d clusters: %d requests, want %d", tt.kind, tt.clusters, got, tt.want)
		}
		if k.Cost.Cloud != "digitalocean" || k.Cost.PerMinute != 250 {
			t.Errorf("%s: cloud %q at %d a minute, want digitalocean at 250", tt.kind, k.Cost.Cloud, k.Cost.PerMinute)
		}
	}
}

// A drift's estimates are the requests bench/takeover.sh counted in a drift of 100 clusters and
// 100 pools: 100 lists of the account's clusters and 100 reads of a cluster, 100 reads of a pool.
func TestTheDigitalOceanKindsEstimateTheRequestsADriftWasCountedSending(t *testing.T) {
	for _, tt := range []struct {
		kind     string
		clusters int
		want     int
	}{
		{kind: "DigitalOceanKubernetesCluster", clusters: 100, want: 2},
		{kind: "DigitalOceanKubernetesCluster", clusters: 201, want: 3},
		{kind: "DigitalOceanKubernetesNodePool", clusters: 100, want: 1},
	} {
		k, ok := registry.Kinds().ByName(tt.kind)
		if !ok || k.Cost == nil || k.Cost.Refresh == nil {
			t.Fatalf("%s has no refresh cost", tt.kind)
		}
		if got := k.Cost.Refresh(tt.clusters); got != tt.want {
			t.Errorf("%s in an account of %d clusters: %d requests, want %d", tt.kind, tt.clusters, got, tt.want)
		}
	}
}
