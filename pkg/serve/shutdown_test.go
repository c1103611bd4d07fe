package serve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// stoppable is a replica the test stops as SIGTERM does: the context its Run was given ends.
type stoppable struct {
	*service
	stop context.CancelFunc
	// ended is closed once Run has returned.
	ended chan struct{}
}

// startStoppable starts a replica with that many workers and that shutdown grace on the database
// db, its stacks on the backend b (which several replicas share, as they share a Pulumi backend
// and a cloud), and makes it an editor's and a viewer's token.
func startStoppable(t *testing.T, db string, b *deploytest.Backend, workers int, grace time.Duration) *stoppable {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	opts := serve.Options{DatabaseURL: db, Workers: workers, Kinds: registry.Kinds(),
		Backend:      func() (stackstate.Backend, error) { return b, nil },
		StackTimeout: time.Minute, RescueAfter: time.Hour, ShutdownGrace: grace}
	svc, err := serve.Open(ctx, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ts := httptest.NewServer(svc.Server.Handler())
	r := &stoppable{stop: cancel, ended: make(chan struct{})}
	go func() {
		defer close(r.ended)
		if err := svc.Run(ctx, opts); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-r.ended
		ts.Close()
	})
	tokens := map[auth.Role]string{}
	for _, role := range []auth.Role{auth.Viewer, auth.Editor} {
		if tokens[role], err = serve.CreateToken(ctx, svc.Store.Tokens(), "stop-"+string(role), role, ""); err != nil {
			t.Fatal(err)
		}
	}
	r.service = &service{t: t, url: ts.URL, backend: b, tokens: tokens}
	return r
}

// clusterStack is the stack of doCluster's cluster on the fake engine.
const clusterStack = "digitaloceankubernetescluster/api-fra1"

// updates counts the engine's updates of stack key.
func updates(b *deploytest.Backend, key string) int {
	n := 0
	for _, call := range b.Calls() {
		if call == "update "+key {
			n++
		}
	}
	return n
}

// reconcileJob is the one reconcile job on the database: its state, its attempt, its most
// attempts and the errors its attempts recorded.
func reconcileJob(t *testing.T, db string) (state string, attempt, maxAttempts int, errs string) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.DB.QueryRow(`SELECT state, attempt, max_attempts, coalesce(array_to_string(errors, ' '), '') FROM river_job
		WHERE kind = $1`, reconcile.Args{}.Kind()).Scan(&state, &attempt, &maxAttempts, &errs); err != nil {
		t.Fatal(err)
	}
	return state, attempt, maxAttempts, errs
}

// A replica stopped (SIGTERM) while its worker deploys a cluster: /readyz answers 503 at once,
// and the deploy finishes within the shutdown grace on the stopping replica, or, when the grace
// ends first, is interrupted and handed back to the queue, and another replica (one running
// beside it, or the same one started again) takes it up at once: well within the leases' 40
// seconds, which a kill -9 waits for. Either way the job completes once, the engine never runs
// two operations at once, and the stack is updated to the end once.
//
// Promise: api-sigterm-finishes-or-hands-back
func TestAReplicaStoppedMidDeployFinishesItWithinTheGraceOrHandsItBack(t *testing.T) {
	tests := []struct {
		name string
		// deploy is how long the first up takes; grace the stopped replica's.
		deploy, grace time.Duration
		// beside runs a second replica while the first stops; without it the first is started
		// again once stopped.
		beside bool
		// failing is how many attempts fail before the one stopped: River would retry the one
		// handed back after a backoff of minutes.
		failing int
		// attempts and ups are the job's attempts and the stack's updates in all.
		attempts, ups int
	}{
		{name: "a deploy shorter than the grace finishes on the stopping replica", deploy: 4 * time.Second,
			grace: time.Minute, beside: true, attempts: 1, ups: 1},
		{name: "a deploy longer than the grace is handed back to the replica beside it", deploy: time.Hour,
			grace: 2 * time.Second, beside: true, attempts: 2, ups: 2},
		{name: "a deploy longer than the grace of a replica alone is taken up by it started again", deploy: time.Hour,
			grace: 2 * time.Second, attempts: 2, ups: 2},
		{name: "a third attempt handed back is taken up at once, not after River's backoff", deploy: time.Hour,
			grace: 2 * time.Second, beside: true, failing: 2, attempts: 4, ups: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := pgtest.Start(t).Database("serve")
			b := deploytest.New()
			for range tt.failing {
				b.Fail(clusterStack, "update", errors.New("the cloud answered 500"))
			}
			if tt.failing == 0 {
				b.Delay(clusterStack, "update", tt.deploy)
			}
			first := startStoppable(t, db, b, 1, tt.grace)
			_, c := first.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
			path := "/api/v1/clusters/" + c["id"].(string)
			if tt.failing > 0 {
				// The next attempt comes after River's backoff (16 s after the second).
				waitFor(t, "the failing attempts fail", func() bool { return updates(b, clusterStack) == tt.failing })
				b.Delay(clusterStack, "update", tt.deploy)
			}
			waitFor(t, "the first replica's worker starts the cluster's up", func() bool { return updates(b, clusterStack) == tt.failing+1 })
			var front *service
			if tt.beside {
				front = startStoppable(t, db, b, 1, time.Minute).service
			}

			first.stop()
			stopped := time.Now()
			b.Delay(clusterStack, "update", 0) // only the up under way is long
			eventuallyProbes(t, first.url, http.StatusServiceUnavailable, "shutting down")
			select {
			case <-first.ended:
			case <-time.After(tt.grace + time.Minute):
				t.Fatalf("the replica had not stopped %s after its stop, with a grace of %s", time.Since(stopped), tt.grace)
			}
			ran := time.Since(stopped)
			if front == nil {
				front = startStoppable(t, db, b, 1, time.Minute).service
			}
			front.waitReady(path)
			t.Logf("the stopped replica ran %s more; the cluster was Ready %s after the stop", ran.Round(time.Millisecond),
				time.Since(stopped).Round(time.Millisecond))
			if took := time.Since(stopped) - ran; took > 20*time.Second {
				t.Errorf("the cluster was Ready %s after the stopped replica ended: the job waited, as for a lease to run out", took)
			}

			// The status is written a moment before River records the job's end.
			waitFor(t, "River records the job's end", func() bool { state, _, _, _ := reconcileJob(t, db); return state != "running" })
			state, attempt, maxAttempts, errs := reconcileJob(t, db)
			if state != "completed" || attempt != tt.attempts {
				t.Errorf("the job is %s after %d attempts, want completed after %d: %s", state, attempt, tt.attempts, errs)
			}
			if handed := tt.attempts > 1; handed != strings.Contains(errs, "handed back") || handed && maxAttempts != 6 {
				t.Errorf("handed back: %v; the job's errors %q, its most attempts %d (one more for each hand-back)", handed, errs, maxAttempts)
			}
			if got := updates(b, clusterStack); got != tt.ups {
				t.Errorf("the cluster's stack was updated %d times, want %d: %v", got, tt.ups, b.Calls())
			}
			if b.MaxRunning() != 1 {
				t.Errorf("%d engine operations ran at once, want one at a time: %v", b.MaxRunning(), b.Calls())
			}
			if res := b.Resources(clusterStack); !slices.ContainsFunc(res, func(r string) bool { return strings.Contains(r, "KubernetesCluster") }) {
				t.Errorf("the cluster's stack holds %v, want its cluster", res)
			}
		})
	}
}

// waitFor polls done until it holds, for up to a minute.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !done(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
	}
}
