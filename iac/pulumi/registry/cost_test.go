package registry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
)

// The estimates the runs are paced by are the requests counted on the loopback cloud: an adopt's
// at 3 clusters by the e2e trace (TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout)
// and at 100 by bench/takeover.sh; a drift's by bench/takeover.sh (a read of each cluster and
// pool). The look-ups by name read the run's one list of the account, 200 clusters a page, which
// no stack's own estimate counts.
func TestTheDigitalOceanKindsEstimateTheRequestsEachOperationWasCountedSending(t *testing.T) {
	for _, tt := range []struct {
		kind     string
		op       string
		estimate queue.Requests
		clusters int
		want     int
		lists    bool
	}{
		{"DigitalOceanKubernetesCluster", "adopt", queue.Adopting, 3, 8, true},
		{"DigitalOceanKubernetesCluster", "adopt", queue.Adopting, 201, 8, true},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 3, 4, true},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 100, 12, true},
		{"DigitalOceanKubernetesNodePool", "adopt", queue.Adopting, 101, 14, true},
		{"DigitalOceanKubernetesCluster", "drift", queue.Refreshing, 201, 1, true},
		{"DigitalOceanKubernetesNodePool", "drift", queue.Refreshing, 100, 1, false},
	} {
		k, ok := registry.Kinds().ByName(tt.kind)
		if !ok || k.Cost == nil || tt.estimate(k.Cost).Own == nil {
			t.Fatalf("%s has no %s cost", tt.kind, tt.op)
		}
		e := tt.estimate(k.Cost)
		if got := e.Own(tt.clusters); got != tt.want || e.Lists != tt.lists {
			t.Errorf("%s of a %s in an account of %d clusters: %d requests, looks up by name %t; want %d, %t",
				tt.op, tt.kind, tt.clusters, got, e.Lists, tt.want, tt.lists)
		}
		if got, want := k.Cost.List(tt.clusters), (tt.clusters+199)/200; got != want {
			t.Errorf("%s: the run's list of an account of %d clusters is %d requests, want %d", tt.kind, tt.clusters, got, want)
		}
		if k.Cost.Cloud != "digitalocean" || k.Cost.PerMinute != 250 {
			t.Errorf("%s: cloud %q at %d a minute, want digitalocean at 250", tt.kind, k.Cost.Cloud, k.Cost.PerMinute)
		}
	}
}
