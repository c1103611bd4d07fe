package queue_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

func target(stack string) deploytarget.Target {
	return deploytarget.Target{Kind: kinds.Kind{Project: "p"}, Stack: stack}
}

// runs runs the queue within a bound: a queue that never ends fails the test rather than hanging it.
func runs(t *testing.T, q queue.Queue, sorted []deploytarget.Target, deps map[string][]string, op outcome.StackFunc, within time.Duration) []outcome.Outcome {
	t.Helper()
	done := make(chan []outcome.Outcome, 1)
	go func() { done <- q.Run(context.Background(), sorted, deps, op) }()
	select {
	case out := <-done:
		return out
	case <-time.After(within):
		t.Fatalf("the queue did not end within %s", within)
		return nil
	}
}

// Destroy's waits point back in the order: a cluster waits for the cluster in its VPC, which
// waits for its pool. The pool's failure skips both, in one step, though nothing runs after it
// (a pass over the order left the first cluster to a step that never came, and hung).
func TestDestroySkipsEveryStackAFailureBlocksThoughNothingElseRuns(t *testing.T) {
	sorted := []deploytarget.Target{target("c"), target("b"), target("a")}
	deps := map[string][]string{"p/b": {"p/c"}, "p/a": {"p/b"}}
	out := runs(t, queue.Queue{Parallel: 1, Reverse: true}, sorted, deps, func(_ context.Context, tg deploytarget.Target) outcome.Outcome {
		return outcome.Outcome{Target: tg, Status: outcome.Failed, Reason: "failed"}
	}, 10*time.Second)
	got := ""
	for _, o := range out {
		got += fmt.Sprintf("%s %s %s; ", o.Target.Stack, o.Status, o.BlockedBy)
	}
	if want := "c skipped p/b; b skipped p/a; a failed ; "; got != want {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}

// Each step of the queue looks at the stacks that may move, not at the whole fleet: 40,000
// stacks are queued in a quarter of a second, where a pass over every stack at each start took
// 40,000 passes over 40,000 stacks (12 s for 20,000 on 2 cores).
func TestAFleetOfFortyThousandStacksIsQueuedInTimeLinearInItsSize(t *testing.T) {
	const n = 40000
	sorted := make([]deploytarget.Target, 0, n)
	deps := map[string][]string{}
	for i := range n {
		sorted = append(sorted, target(fmt.Sprintf("s%05d", i)))
		if i%2 == 1 { // every other stack references the one before, as a pool its cluster
			deps[sorted[i].Key()] = []string{sorted[i-1].Key()}
		}
	}
	var ran atomic.Int64
	out := runs(t, queue.Queue{Parallel: 4}, sorted, deps, func(_ context.Context, tg deploytarget.Target) outcome.Outcome {
		ran.Add(1)
		return outcome.Outcome{Target: tg, Status: outcome.Done}
	}, 5*time.Second)
	if ran.Load() != n || len(out) != n {
		t.Fatalf("%d ran, %d outcomes; want %d", ran.Load(), len(out), n)
	}
	for i, o := range out {
		if o.Target.Key() != sorted[i].Key() || o.Status != outcome.Done {
			t.Fatalf("outcome %d: %s %s, want %s done", i, o.Target.Key(), o.Status, sorted[i].Key())
		}
	}
}
