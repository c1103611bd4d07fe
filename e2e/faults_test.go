//go:build e2e

package e2e_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// Promise: e2e-cloud-faults-named-never-the-token
func TestWhenTheCloudSaysNoClusterplaneSaysWhyNamingTheManifestAndTheResourceNeverTheToken(t *testing.T) {
	t.Parallel()
	const clusters = "/v2/kubernetes/clusters"
	tests := []struct {
		name string
		// fault is what the DigitalOcean API does; setup, when set, prepares the cloud instead.
		fault fakecloud.Fault
		setup func(e *env)
		// done says the up gets through (clusterplane runs it again after throttling or a server
		// error that left nothing behind); else
		// says is what the error must say besides the file: what failed, and the cloud's reason.
		done bool
		says []string
	}{
		{name: "a bad token", setup: func(e *env) { e.vars = append(e.vars, "DIGITALOCEAN_TOKEN=dop_v1_"+strings.Repeat("0", 64)) },
			says: []string{"cluster dev-fra1", "HTTP 401 Unable to authenticate you"}},
		// clusterplane refuses a size the options list lacks before the engine runs
		// (TestPreviewAndUpRefuseWhatTheCloudDoesNotOfferBeforeTheEngine); when that list cannot be
		// read, the cloud's own refusal is what the user sees.
		{name: "a size DigitalOcean does not offer, in its words, when its options could not be read", setup: func(e *env) {
			e.do.Account().SetSizes("s-4vcpu-8gb")
			e.do.Inject(fakecloud.Fault{Method: "GET", Path: "/v2/kubernetes/options", Status: http.StatusNotFound})
		},
			says: []string{"digitalocean:index/kubernetesCluster:KubernetesCluster dev-fra1: ", "422", "invalid size"}},
		{name: "throttling, with Retry-After", fault: fakecloud.Fault{Method: "POST", Path: clusters, Status: http.StatusTooManyRequests,
			RetryAfter: time.Second, Times: 2}, done: true},
		{name: "a server error", fault: fakecloud.Fault{Method: "POST", Path: clusters, Status: http.StatusServiceUnavailable}, done: true},
		{name: "a slow answer", fault: fakecloud.Fault{Method: "GET", Path: clusters, Delay: 3 * time.Second}, done: true},
		// The create's read answered 404: the cluster it made, carrying the stack's mark, is taken
		// back by the same up.
		{name: "a read that fails once right after the create", fault: fakecloud.Fault{Method: "GET", Path: clusters + "/",
			Status: http.StatusNotFound, After: "POST"}, done: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if tt.setup != nil {
				tt.setup(e)
			}
			if tt.fault.Times != 0 || tt.fault.Status != 0 || tt.fault.Delay != 0 {
				e.do.Inject(tt.fault)
			}
			manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
			r, code := e.clusterplane("up", manifest, "--yes")
			if tt.done {
				if code != 0 {
					t.Errorf("up = %d, want it done (clusterplane runs it again): %s", code, r)
				}
				return
			}
			// The table's row names the file and the stack, and holds the resource and the cloud's
			// answer; the token never appears (assertNoSecrets).
			var row string
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(line, manifest+" ") && strings.Contains(line, "digitaloceankubernetescluster/dev-fra1") {
					row = line
				}
			}
			says := code == 1 && strings.Contains(row, "failed: ") && !strings.Contains(r.stdout, "done:")
			for _, s := range tt.says {
				says = says && strings.Contains(row, s)
			}
			if !says {
				t.Errorf("up = %d, want it failed naming %s and %q: %s", code, manifest, tt.says, r)
			}
			if st := e.status(manifest); st.Conditions[0].Status == "True" {
				t.Errorf("status after a failed up says Ready: %+v", st)
			}
		})
	}
}

// Promise: up-refresh-false-reads-an-undeployed-manifest-first
// Promise: e2e-cloud-faults-named-never-the-token
func TestAFailedUpdateIsNeverReportedDoneAndTheNextUpPutsItRight(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")
	manifest := e.write("cluster.yaml", text)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	cluster := e.doCluster("dev-fra1")
	// The default pool's scaling fails once at DigitalOcean (a 422 is not retried).
	e.do.Inject(fakecloud.Fault{Method: "PUT", Path: "/v2/kubernetes/clusters/" + cluster.ID + "/node_pools/", Status: 422,
		Message: "validation error: the pool cannot be scaled now"})
	scaled := e.write("cluster.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: 3", 1))
	r, code := e.clusterplane("up", scaled, "--yes")
	if code != 1 || !strings.Contains(r.stdout+r.stderr, "the pool cannot be scaled now") {
		t.Fatalf("up of a failing scale = %d, want 1 with DigitalOcean's reason: %s", code, r)
	}
	if st := e.status(scaled); st.Conditions[0].Status == "True" {
		t.Errorf("status after a failed update says Ready: %+v", st)
	}
	e.statusFromRecordsAgrees(scaled)
	// The fault has passed: the next up must scale the pool, not take the failed update for done.
	if r, code := e.clusterplane("up", scaled, "--yes"); code != 0 {
		t.Fatalf("up after the fault = %d: %s", code, r)
	}
	if p := e.doPool(cluster.ID, "default"); p.Count != 3 {
		t.Errorf("the pool has %d nodes after the fault passed, want 3: the failed update was taken for done", p.Count)
	}
	if st := e.status(scaled); st.Conditions[0].Status != "True" || st.Conditions[1].Reason != "InSync" {
		t.Errorf("status after the scale: %+v", st)
	}
	e.statusFromRecordsAgrees(scaled)
}

// Civo publishes no rate limit, but its API may answer 429 as any may: the Civo plugin's client
// (civogo) does not ask again, so clusterplane runs the operation again, as it does for
// DigitalOcean, and a create throttled before or after it reached the cloud makes one cluster.
func TestACivoThrottledUpIsRunAgainAndMakesOneCluster(t *testing.T) {
	t.Parallel()
	const clusters = "/v2/kubernetes/clusters"
	tests := []struct {
		name  string
		fault fakecloud.Fault
	}{
		{"the create throttled twice", fakecloud.Fault{Method: "POST", Path: clusters, Status: http.StatusTooManyRequests,
			RetryAfter: time.Second, Times: 2}},
		{"a read throttled once after the create", fakecloud.Fault{Method: "GET", Path: clusters + "/", Status: http.StatusTooManyRequests,
			RetryAfter: time.Second, After: "POST"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedExamples()
			before := len(e.civo.Clusters())
			e.civo.Inject(tt.fault)
			manifest := e.write("cluster.yaml", example(t, "civokubernetescluster/minimal.yaml"))
			r, code := e.clusterplane("up", manifest, "--yes")
			if code != 0 {
				t.Errorf("up = %d, want it done (clusterplane runs it again): %s", code, r)
			}
			if n := len(e.civo.Clusters()) - before; n != 1 {
				t.Errorf("the up made %d clusters in Civo, want 1", n)
			}
		})
	}
}

// A cloud's rate limit outlasting clusterplane's own waits (30 s in all): the plugins' errors do
// not carry the Retry-After, so clusterplane asks the cloud before running the operation again
// and waits what it says (retry.CloudRetryAfter). Without asking, all five attempts fall within
// the limit and the refresh fails.
func TestARefreshUnderARateLimitWaitsWhatTheCloudAsksAndGetsThrough(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, example string
		inject        func(e *env, f fakecloud.Fault)
	}{
		{"DigitalOcean", "digitaloceankubernetescluster/minimal.yaml", func(e *env, f fakecloud.Fault) { e.do.Inject(f) }},
		{"Civo", "civokubernetescluster/minimal.yaml", func(e *env, f fakecloud.Fault) { e.civo.Inject(f) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedExamples()
			manifest := e.write("cluster.yaml", withSpec(example(t, tt.example), "  deletionProtection: false\n"))
			if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			tt.inject(e, fakecloud.Fault{Status: http.StatusTooManyRequests, For: 40 * time.Second})
			start := time.Now()
			r, code := e.clusterplane("refresh", manifest)
			if code != 0 {
				t.Errorf("refresh under a 40 s rate limit = %d after %v, want it done once the limit ended: %s",
					code, time.Since(start).Round(time.Second), r)
			}
		})
	}
}
