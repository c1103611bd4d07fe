package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve"
)

// askProbe sends GET path and returns the status and what the answer says: its text, or the
// message of an error body.
func askProbe(t *testing.T, url, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out struct {
		Error struct{ Message string } `json:"error"`
	}
	if json.Unmarshal(data, &out) == nil && out.Error.Message != "" {
		return resp.StatusCode, out.Error.Message
	}
	return resp.StatusCode, string(data)
}

// eventuallyProbes waits until GET /readyz answers status saying says, and checks that
// GET /healthz answers ok meanwhile: the database has come or gone, and the pool takes a
// moment to see it.
func eventuallyProbes(t *testing.T, url string, status int, says string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got, gotSays := askProbe(t, url, "/healthz"); got != http.StatusOK || gotSays != "ok\n" {
			t.Fatalf("GET /healthz = %d %q, want 200 ok: liveness is the process's own, whatever the database", got, gotSays)
		}
		got, gotSays := askProbe(t, url, "/readyz")
		if got == status && gotSays == says {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /readyz = %d %q after 30s, want %d %q", got, gotSays, status, says)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The "Done when": readiness follows the database, down and back up, while liveness
// stays ok throughout.
func TestReadyzFollowsThePostgreSQLServerDownAndBackUp(t *testing.T) {
	pg := pgtest.Start(t)
	url, _, _ := launch(t, pg.Database("serve"), 0)
	pgctl := func(args ...string) func() {
		return func() { pg.Run("pg_ctl", append([]string{"-D", pg.DataDir(), "-w", "-t", "60"}, args...)...) }
	}
	// Started again as pgtest starts it: the same port, so the replica's URL still names it.
	start := pgctl("-l", filepath.Join(pg.Dir(), "restart.log"), "-o",
		fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off", pg.Port(), pg.Dir()), "start")
	for _, step := range []struct {
		name   string
		do     func()
		status int
		says   string
	}{
		{"it answers ok with the database up", nil, http.StatusOK, "ok\n"},
		{"it answers 503 while the database is stopped", pgctl("-m", "fast", "stop"), http.StatusServiceUnavailable, "the database does not answer"},
		{"it answers ok again once the database is back", start, http.StatusOK, "ok\n"},
	} {
		// Steps of one story, in order: each runs in the test's goroutine (pgtest's methods
		// must), and a failed one ends the story.
		if step.do != nil {
			step.do()
		}
		if !t.Run(step.name, func(t *testing.T) { eventuallyProbes(t, url, step.status, step.says) }) {
			return
		}
	}
}

func TestReadyzAnswers503WhenTheReplicaCannotServe(t *testing.T) {
	for _, tc := range []struct {
		name string
		// stop puts the launched replica in the state the case is about; cancel ends its Run.
		stop func(t *testing.T, url string, cancel context.CancelFunc)
		says string
	}{
		{"it answers 503 while the SQLite file's handle is closed",
			func(t *testing.T, url string, _ context.CancelFunc) { storeOf(t, url).Close() }, "the database does not answer"},
		{"it answers 503 once shutdown has begun, before the database closes",
			func(_ *testing.T, _ string, cancel context.CancelFunc) { cancel() }, "shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, cancel := launchOwnRun(t)
			eventuallyProbes(t, url, http.StatusOK, "ok\n")
			tc.stop(t, url, cancel)
			eventuallyProbes(t, url, http.StatusServiceUnavailable, tc.says)
		})
	}
}

// launchOwnRun starts a replica without workers on a fresh SQLite file, its API served apart from
// its Run (as launch serves it), and returns its URL and what ends its Run: the API stays up
// after, so that what it answers once shutdown has begun can be asked.
func launchOwnRun(t *testing.T) (string, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	svc, err := serve.Open(ctx, serve.Options{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "serve.db"),
		Kinds: registry.Kinds(), StackTimeout: time.Minute, RescueAfter: time.Hour})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ts := httptest.NewServer(svc.Server.Handler())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, serve.Options{}) }()
	launched.Store(ts.URL, svc.Store)
	t.Cleanup(func() {
		launched.Delete(ts.URL)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		ts.Close()
	})
	return ts.URL, cancel
}

// On SIGTERM a replica's own listener stays open for the shutdown delay, GET /readyz answering
// 503 and every other route still served, so that a load balancer stops sending before a
// connection is refused; Run returns once the delay is over. With no delay the listener closes
// at once.
// Promise: api-sigterm-readyz-503-before-close
func TestAStoppingReplicaAnswers503OnItsOwnListenerForTheShutdownDelay(t *testing.T) {
	const delay = 2 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := serve.Options{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "serve.db"), Kinds: registry.Kinds(),
		StackTimeout: time.Minute, RescueAfter: time.Hour, Listen: "127.0.0.1:0", ShutdownDelay: delay}
	listening := make(chan string, 1)
	opts.Ready = func(addr string) { listening <- addr }
	svc, err := serve.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, opts) }()
	url := "http://" + <-listening
	eventuallyProbes(t, url, http.StatusOK, "ok\n")

	cancel()
	stopped := time.Now()
	eventuallyProbes(t, url, http.StatusServiceUnavailable, "shutting down")
	if took := time.Since(stopped); took >= delay {
		t.Fatalf("the 503 came %s after the stop, not within the delay of %s", took, delay)
	}
	if got, _ := askProbe(t, url, "/openapi.json"); got != http.StatusOK {
		t.Errorf("GET /openapi.json during the delay = %d, want 200: the API still serves", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(stopped); took < delay {
		t.Errorf("Run returned %s after the stop, before the delay of %s", took, delay)
	}
	if _, err := http.Get(url + "/readyz"); err == nil {
		t.Errorf("GET /readyz answered after Run returned: the listener is still open")
	}
}
