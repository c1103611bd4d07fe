//go:build e2e

package e2e_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// operatorMetrics reads the operator's /metrics and sums the provider's series by name and the
// labels asked for: "clusterplane_karpenter_cloud_requests_total status=200" with by "status".
func operatorMetrics(t *testing.T, op *operator, by ...string) map[string]float64 {
	t.Helper()
	return scrape(t, op.metricsURL(), func(name string, labels map[string]string) string {
		if !strings.HasPrefix(name, "clusterplane_karpenter_") {
			return ""
		}
		for _, b := range by {
			if v, ok := labels[b]; ok {
				name += " " + b + "=" + v
			}
		}
		return name
	})
}

// The "Done when": the provider's /metrics, scraped during a run, counts exactly the
// requests the loopback cloud logged from it, by status, and the pool writes it logged.
// Promise: karpenter-metrics-count-the-clouds-requests
func TestTheProvidersMetricsCountExactlyTheRequestsTheCloudLogged(t *testing.T) {
	t.Parallel()
	for _, cloud := range karpenterClouds {
		t.Run(cloud.name, func(t *testing.T) {
			t.Parallel()
			k := newKubeCluster(t)
			c := cloud.setup(t, k)
			c.reset() // from here the cloud logs the provider's requests, from its first
			op, _ := karpenterOn(t, k, c)
			cs := k.clientset()
			pendingPods(t, cs, "shop", 3, "1", "1Gi")
			waitFor(t, 5*time.Minute, "3 pods running", func() bool { return runningPods(t, cs, "shop") == 3 })
			name := strings.ToLower(c.name)
			var logged, counted map[string]float64
			// The provider reads on its own timers: the counts agree between two of its requests.
			waitFor(t, time.Minute, "the metrics agreeing with the cloud's log", func() bool {
				logged = map[string]float64{}
				for _, r := range c.requests() {
					logged[fmt.Sprintf("clusterplane_karpenter_cloud_requests_total cloud=%s status=%d", name, r.Status)]++
				}
				logged["clusterplane_karpenter_pool_writes_total cloud="+name] = float64(len(c.writes()))
				counted = operatorMetrics(t, op, "cloud", "status")
				for k, v := range operatorMetrics(t, op, "cloud") {
					if strings.HasPrefix(k, "clusterplane_karpenter_pool_writes_total") {
						counted[k] = v
					}
				}
				for k, v := range logged {
					if counted[k] != v {
						return false
					}
				}
				for k, v := range counted {
					if strings.HasPrefix(k, "clusterplane_karpenter_cloud_requests_total") && logged[k] != v {
						return false
					}
				}
				return true
			})
			t.Logf("%s: the cloud logged %v; the metrics %v", c.name, logged, counted)
			if n := counted["clusterplane_karpenter_cloud_requests_total cloud="+name+" status=200"]; n == 0 {
				t.Errorf("no request counted: %v", counted)
			}
			ready := operatorMetrics(t, op, "ready")
			if ready["clusterplane_karpenter_nodeclasses ready=True"] != 1 {
				t.Errorf("NodeClasses Ready: %v, want 1", ready)
			}
		})
	}
}
