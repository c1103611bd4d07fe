package serve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// The drift checks run on a queue of their own, one at a time on a replica, so that they never
// keep a write's reconcile waiting for a worker; and an object never has two checks waiting,
// whatever the sweeps queue (here one every 20 ms, far faster than the checks run).
// Promise: api-drift-checks-on-their-own-queue
// Promise: api-object-never-two-checks-waiting
func TestDriftChecksRunOnTheirOwnQueueOneAtATimeAndNeverTwiceForAnObject(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
	previews := &concurrency{}
	url, b, tokens := launch(t, db, 4, func(o *serve.Options) {
		o.DriftEvery = 20 * time.Millisecond
		inner := o.Backend
		o.Backend = func() (stackstate.Backend, error) {
			b, err := inner()
			if err != nil {
				return nil, err
			}
			return previewSpy{b.(*deploytest.Backend), previews}, nil
		}
	})
	s := &service{t: t, url: url, backend: b, tokens: tokens}
	for _, name := range []string{"drift-a", "drift-b", "drift-c"} {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", strings.Replace(doCluster, "api-fra1", name, 1))
		s.waitReady("/api/v1/clusters/" + c["id"].(string))
	}
	previews.reset() // from here on, with no write, only the drift checks preview
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checks := 0
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rows, err := st.DB.Query(`SELECT json(args), state, queue FROM river_job WHERE kind = 'clusterplane_drift'`)
		if err != nil {
			t.Fatal(err)
		}
		waiting := map[string]int{}
		for rows.Next() {
			var args []byte
			var state, queue string
			if err := rows.Scan(&args, &state, &queue); err != nil {
				t.Fatal(err)
			}
			checks++
			if queue != "drift" {
				t.Fatalf("a drift check on queue %q, want its own, drift", queue)
			}
			var a struct {
				ObjectID string `json:"object_id"`
			}
			if err := json.Unmarshal(args, &a); err != nil || a.ObjectID == "" {
				t.Fatalf("a drift check of args %q (%s): %v", args, state, err)
			}
			switch state {
			case "available", "scheduled", "pending", "retryable":
				waiting[a.ObjectID]++
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		for id, n := range waiting {
			if n > 1 {
				t.Fatalf("object %s has %d drift checks waiting, want one at most", id, n)
			}
		}
	}
	if checks == 0 || previews.runs() == 0 {
		t.Fatalf("%d drift checks queued, %d previews: the test saw nothing", checks, previews.runs())
	}
	if n := previews.most(); n > 1 {
		t.Errorf("%d drift checks ran at once on one replica (4 workers), want one at a time", n)
	}
}

// concurrency counts the previews running at once.
type concurrency struct {
	mu                  sync.Mutex
	running, max, count int
}

func (c *concurrency) reset() { c.mu.Lock(); c.max, c.count = c.running, 0; c.mu.Unlock() }
func (c *concurrency) most() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.max
}
func (c *concurrency) runs() int { c.mu.Lock(); defer c.mu.Unlock(); return c.count }

// previewSpy is the fake backend whose stacks' previews take 100 ms and are counted.
type previewSpy struct {
	*deploytest.Backend
	c *concurrency
}

var _ stackstate.Backend = previewSpy{}

func (b previewSpy) Open(ctx context.Context, project, name string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Open(ctx, project, name, program)
	if err != nil {
		return nil, err
	}
	return countedStack{s, b.c}, nil
}

type countedStack struct {
	stackstate.Stack
	c *concurrency
}

func (s countedStack) Preview(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	s.c.mu.Lock()
	s.c.running++
	s.c.count++
	s.c.max = max(s.c.max, s.c.running)
	s.c.mu.Unlock()
	defer func() { s.c.mu.Lock(); s.c.running--; s.c.mu.Unlock() }()
	time.Sleep(100 * time.Millisecond)
	return s.Stack.Preview(ctx, o)
}
