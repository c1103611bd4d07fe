//go:build e2e

package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// serveCloudRequest matches a series of serve's clusterplane_cloud_requests_total.
var serveCloudRequest = regexp.MustCompile(`^clusterplane_cloud_requests_total\{(.*)\} ([0-9.e+]+)$`)

// cloudRequests reads serve's /metrics and sums clusterplane_cloud_requests_total by cloud and
// status: "digitalocean 200".
func (a *api) cloudRequests() map[string]float64 {
	a.e.t.Helper()
	resp, err := http.Get(a.url + "/metrics")
	if err != nil {
		a.e.t.Fatalf("scrape serve: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		m := serveCloudRequest.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(m[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = strings.Trim(v, `"`)
		}
		n, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			a.e.t.Fatalf("serve's metrics: %q: %v", line, err)
		}
		out[labels["cloud"]+" "+labels["status"]] += n
	}
	return out
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
