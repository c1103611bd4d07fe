//go:build e2e

package e2e_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// cloudRequests reads serve's /metrics and sums clusterplane_cloud_requests_total by cloud and
// status: "digitalocean 200".
func (a *api) cloudRequests() map[string]float64 {
	a.e.t.Helper()
	return scrape(a.e.t, a.url, func(name string, labels map[string]string) string {
		if name != "clusterplane_cloud_requests_total" {
			return ""
		}
		return labels["cloud"] + " " + labels["status"]
	})
}

// The "Done when": serve's /metrics, scraped during a run on the real engine, counts
// exactly the requests its own process sent that the loopback cloud logged (clusterplane's
// clients name themselves in User-Agent; the Pulumi providers' requests, from processes of
// their own, are not serve's to count).
// Promise: api-metrics-cloud-requests
func TestServesMetricsCountExactlyTheRequestsTheCloudLoggedFromIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.serveAPI(pgtest.Start(t).Database("serve"))
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "metrics-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	var logged, counted map[string]float64
	var others int
	waitFor(t, time.Minute, "serve's count agreeing with the cloud's log", func() bool {
		logged, others = map[string]float64{}, 0
		for _, r := range e.do.Requests("") {
			if r.UserAgent == cloudapi.UserAgent {
				logged[fmt.Sprintf("digitalocean %d", r.Status)]++
			} else {
				others++
			}
		}
		counted = a.cloudRequests()
		if len(logged) != len(counted) {
			return false
		}
		for k, v := range logged {
			if counted[k] != v {
				return false
			}
		}
		return true
	})
	t.Logf("the cloud logged %v from serve and %d from the providers; serve counted %v", logged, others, counted)
	if others == 0 {
		t.Errorf("the cloud logged no request of the providers: the cluster was not deployed through them")
	}
}
