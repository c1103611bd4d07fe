package registry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
)

// The estimates the runs are paced by are the requests counted on the loopback cloud: an adopt's
// at 3 clusters by the e2e trace (TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout)
// and at 100 by bench/takeover.sh (2,100 reads and 100 writes for 100 clusters and 100 pools); a
// drift's by bench/takeover.sh (100 lists of the account's clusters and 100 reads of a cluster,
// 100 reads of a pool).
func TestTheDigitalOceanKindsEstimateTheRequestsEachOperationWasCountedSending(t *testing.T) {
	for _, tt := range []struct {
		kind     string
		op       string
		estimate queue.Requests
		clusters int
		want     int
	}{
		{"DigitalOceanKubernetesCluster", "adopt", queue.Adopting, 3, 10},
		{"DigitalOceanKubernetesCluster", "adopt", queue.Adopting, 100, 10},
		{"DigitalOceanKubernetesCluster", "adopt", queue.Adopting, 201, 12},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 3, 4},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 100, 12},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 101, 14},
		{"DigitalOceanKubernetesCluster", "drift", queue.Refreshing, 100, 2},
		{"DigitalOceanKubernetesCluster", "drift", queue.Refreshing, 201, 3},
		{"DigitalOceanKubernetesNodePool", "drift", queue.Refreshing, 100, 1},
	} {
		k, ok := registry.Kinds().ByName(tt.kind)
		if !ok || k.Cost == nil || tt.estimate(k.Cost) == nil {
			t.Fatalf("%s has no %s cost", tt.kind, tt.op)
		}
		if got := tt.estimate(k.Cost)(tt.clusters); got != tt.want {
			t.Errorf("%s of a %s in an account of %d clusters: %d requests, want %d", tt.op, tt.kind, tt.clusters, got, tt.want)
		}
		if k.Cost.Cloud != "digitalocean" || k.Cost.PerMinute != 250 {
			t.Errorf("%s: cloud %q at %d a minute, want digitalocean at 250", tt.kind, k.Cost.Cloud, k.Cost.PerMinute)
		}
	}
}
