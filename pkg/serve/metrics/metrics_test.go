package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/serve/metrics"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func TestAnOperationKeepsTheAPIsWordsAndCutsOutIdsAndNames(t *testing.T) {
	for _, tc := range []struct{ name, path, want string }{
		{"a collection keeps every word", "/v2/kubernetes/clusters", "/v2/kubernetes/clusters"},
		{"a UUID is an id", "/v2/kubernetes/clusters/7c1e3f0e-2b1a-4b8e-9a57-3a0a5a1e2f11/node_pools", "/v2/kubernetes/clusters/{id}/node_pools"},
		{"a number is an id", "/v2/droplets/123456", "/v2/droplets/{id}"},
		{"a name with a hyphen or a digit is an id", "/v2/kubernetes/clusters/api-fra1", "/v2/kubernetes/clusters/{id}"},
		{"an upper-case word is an id", "/v2/tags/Production", "/v2/tags/{id}"},
		{"a long word is an id", "/v2/tags/" + strings.Repeat("a", 25), "/v2/tags/{id}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := metrics.Operation(tc.path); got != tc.want {
				t.Errorf("Operation(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// The clouds' requests are counted where they all go through (cloudapi), and the operations
// stay bounded even when a path holds names of letters alone, which Operation keeps.
// Promise: api-metrics-cloud-requests
func TestCloudRequestsAreCountedByCloudOperationAndStatusToABound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			http.Error(w, `{"message": "not found"}`, http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	m := metrics.New(nil)
	stop := m.ObserveClouds()
	defer stop()
	c := cloudapi.New(srv.URL, cloudapi.Bearer("dop_v1_secret"), cloudapi.Options{Cloud: "digitalocean"})
	ctx := context.Background()
	for i := range 3 {
		_ = c.Do(ctx, "GET", fmt.Sprintf("/v2/kubernetes/clusters/%d-c", i), nil, nil)
	}
	_ = c.Do(ctx, "GET", "/v2/kubernetes/missing", nil, nil)
	for i := range 2 * metrics.MaxOperations {
		_ = c.Do(ctx, "GET", "/v2/tags/"+strings.Repeat("x", i%24+1)+strings.Repeat("y", i/24), nil, nil)
	}
	stop()
	_ = c.Do(ctx, "GET", "/v2/account", nil, nil) // after stop: not counted
	for _, tc := range []struct {
		name, op, status string
		want             float64
	}{
		{"three requests to three clusters are one operation", "GET /v2/kubernetes/clusters/{id}", "200", 3},
		{"a refusal is counted under its status", "GET /v2/kubernetes/missing", "404", 1},
		{"a request after the observer stopped is not counted", "GET /v2/account", "200", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cloudRequests(t, m, tc.op, tc.status)
			if got != tc.want {
				t.Errorf("%s %s = %v, want %v", tc.op, tc.status, got, tc.want)
			}
		})
	}
	if n := testutil.CollectAndCount(m.Registry, "clusterplane_cloud_requests_total"); n > metrics.MaxOperations+1 {
		t.Errorf("%d cloud request series, want at most %d", n, metrics.MaxOperations+1)
	}
}

// cloudRequests is clusterplane_cloud_requests_total of DigitalOcean's op and status.
func cloudRequests(t *testing.T, m *metrics.Metrics, op, status string) float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "clusterplane_cloud_requests_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["cloud"] == "digitalocean" && labels["operation"] == op && labels["status"] == status {
				return s.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// Promise: api-metrics-job-counters-from-start
func TestEveryJobCounterHasASeriesForEachKindFromTheStart(t *testing.T) {
	m := metrics.New(map[string]string{"clusterplane_reconcile": "reconcile", "clusterplane_drift": "drift"})
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "kind" {
					found[f.GetName()+" "+l.GetValue()] = true
				}
			}
		}
	}
	for _, name := range []string{"clusterplane_jobs_retried_total", "clusterplane_jobs_failed_total", "clusterplane_jobs_rescued_total"} {
		for _, kind := range []string{"reconcile", "drift"} {
			if !found[name+" "+kind] {
				t.Errorf("no series %s{kind=%q} before any job ran", name, kind)
			}
		}
	}
}

func TestAJobsOutcomeIsWhatRiverWillRecord(t *testing.T) {
	for _, tc := range []struct {
		name              string
		attempt, attempts int
		err               error
		want              string
	}{
		{"a job that returns nil completed", 1, 5, nil, "completed"},
		{"a failure with attempts left is retried", 2, 5, errors.New("boom"), "retried"},
		{"a job handed back by a stopping replica is handed back, not retried", 2, 5, fmt.Errorf("reconcile: %w", reconcile.ErrHandedBack), "handed_back"},
		{"a job handed back at its last attempt is not failed", 5, 5, reconcile.ErrHandedBack, "handed_back"},
		{"a failure of the last attempt failed", 5, 5, errors.New("boom"), "failed"},
		{"a cancel is cancelled, attempts left or not", 1, 5, river.JobCancel(errors.New("hopeless")), "cancelled"},
		{"a snooze is snoozed", 1, 5, river.JobSnooze(time.Minute), "snoozed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := &rivertype.JobRow{Attempt: tc.attempt, MaxAttempts: tc.attempts}
			if got := reconcile.Outcome(job, tc.err); got != tc.want {
				t.Errorf("Outcome = %q, want %q", got, tc.want)
			}
		})
	}
}
