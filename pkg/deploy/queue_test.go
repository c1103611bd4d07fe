package deploy_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// fleet is a cluster c-y, a cluster b-x in its VPC, pools a and d in b-x, and an unrelated
// cluster e-z, in an order that references must put right.
func fleet(t *testing.T) ([]deploytarget.Target, map[string][]string) {
	t.Helper()
	targets := []deploytarget.Target{pool(t, "a", "b-x"), pool(t, "d", "b-x"), namedCluster(t, "b", "x", "c-y"),
		namedCluster(t, "c", "y", ""), namedCluster(t, "e", "z", "")}
	sorted, deps, err := queue.Order(targets, func(string) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	return sorted, deps
}

// recorder is an Op that records when each target starts and ends, and how many run at once.
type recorder struct {
	mu      sync.Mutex
	started []string
	ended   map[string]int
	running int
	max     int
	// fail and block say what an operation on a stack does: fail it, or wait until its context ends.
	fail, block map[string]bool
	hold        time.Duration
}

func newRecorder() *recorder {
	return &recorder{ended: map[string]int{}, fail: map[string]bool{}, block: map[string]bool{}}
}

func (r *recorder) op(ctx context.Context, t deploytarget.Target) outcome.Outcome {
	r.mu.Lock()
	r.started = append(r.started, t.Stack)
	r.running++
	r.max = max(r.max, r.running)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		r.ended[t.Stack] = len(r.started)
		r.mu.Unlock()
	}()
	if r.block[t.Stack] {
		select {
		case <-ctx.Done():
			return outcome.Outcome{Status: outcome.Cancelled, Err: stackstate.ErrCancelled}
		case <-time.After(5 * time.Second):
			// Nothing interrupted it: a queue without deadlines or cancellation ends here.
			return outcome.Outcome{Reason: "never interrupted"}
		}
	}
	time.Sleep(r.hold)
	if r.fail[t.Stack] {
		return outcome.Outcome{Status: outcome.Failed, Reason: "failed"}
	}
	return outcome.Outcome{Reason: "ok"}
}

// before tells whether stack a started before stack b.
func (r *recorder) before(a, b string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ia, ib := -1, -1
	for i, s := range r.started {
		switch s {
		case a:
			ia = i
		case b:
			ib = i
		}
	}
	return ia >= 0 && ib >= 0 && ia < ib
}

func TestTheQueueRunsEveryStackAfterTheStacksItReferencesAndDestroyTheOtherWayRound(t *testing.T) {
	sorted, deps := fleet(t)
	tests := []struct {
		name    string
		reverse bool
		first   [][2]string
	}{
		{"up", false, [][2]string{{"c-y", "b-x"}, {"b-x", "a"}, {"b-x", "d"}}},
		{"destroy", true, [][2]string{{"b-x", "c-y"}, {"a", "b-x"}, {"d", "b-x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			outcomes := queue.Queue{Parallel: 4, Reverse: tt.reverse}.Run(context.Background(), sorted, deps, r.op)
			for _, pair := range tt.first {
				if !r.before(pair[0], pair[1]) {
					t.Errorf("%s started after %s: %v", pair[0], pair[1], r.started)
				}
			}
			if got := statuses(outcomes); strings.Count(got, " done") != 5 {
				t.Errorf("outcomes %s, want all done", got)
			}
		})
	}
}

func TestAFailureSkipsTheStacksThatWaitForItAndNothingElse(t *testing.T) {
	sorted, deps := fleet(t)
	r := newRecorder()
	r.fail["b-x"] = true
	outcomes := queue.Queue{Parallel: 2}.Run(context.Background(), sorted, deps, r.op)
	got := statuses(outcomes)
	for _, want := range []string{"b-x failed", "a skipped by digitaloceankubernetescluster/b-x",
		"d skipped by digitaloceankubernetescluster/b-x", "c-y done", "e-z done"} {
		if !strings.Contains(got, want) {
			t.Errorf("outcomes %s lack %q", got, want)
		}
	}
	for _, s := range r.started {
		if s == "a" || s == "d" {
			t.Errorf("%s ran though the cluster it references failed", s)
		}
	}
}

func TestABlockedStackSkipsItsDependantsOnlyWhenTheQueueSaysSo(t *testing.T) {
	sorted, deps := fleet(t)
	blocking := func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
		if t.Stack == "b-x" {
			return outcome.Outcome{Status: outcome.Blocked, Reason: "not confirmed"}
		}
		return outcome.Outcome{}
	}
	for _, skip := range []bool{true, false} {
		got := statuses(queue.Queue{Parallel: 2, SkipBlocked: skip}.Run(context.Background(), sorted, deps, blocking))
		if skipped := strings.Contains(got, "a skipped"); skipped != skip {
			t.Errorf("SkipBlocked %t: outcomes %s", skip, got)
		}
	}
}

func TestNoMoreStacksRunAtOnceThanParallelSays(t *testing.T) {
	var targets []deploytarget.Target
	for i := range 8 {
		targets = append(targets, namedCluster(t, "c"+string(rune('a'+i)), "p", ""))
	}
	for _, parallel := range []int{1, 3} {
		r := newRecorder()
		r.hold = 20 * time.Millisecond
		queue.Queue{Parallel: parallel}.Run(context.Background(), targets, nil, r.op)
		if r.max != parallel {
			t.Errorf("--parallel %d ran %d at once", parallel, r.max)
		}
	}
}

func TestAStackThatOutlivesItsDeadlineFailsAndTheOthersGoOn(t *testing.T) {
	sorted, deps := fleet(t)
	r := newRecorder()
	r.block["e-z"] = true
	start := time.Now()
	outcomes := queue.Queue{Parallel: 4, StackTimeout: 50 * time.Millisecond}.Run(context.Background(), sorted, deps, r.op)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the queue took %s", took)
	}
	for _, o := range outcomes {
		switch {
		case o.Target.Stack == "e-z" && (o.Status != outcome.Failed || !strings.Contains(o.Reason, "timed out after 50ms")):
			t.Errorf("the blocked stack: %s %q, want failed, timed out", o.Status, o.Reason)
		case o.Target.Stack != "e-z" && o.Status != outcome.Done:
			t.Errorf("%s: %s, want done", o.Target.Stack, o.Status)
		}
	}
}

func TestCancellingTheQueueInterruptsWhatRunsAndStartsNothingMore(t *testing.T) {
	sorted, deps := fleet(t)
	r := newRecorder()
	r.block["c-y"], r.block["e-z"] = true, true
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	outcomes := queue.Queue{Parallel: 2}.Run(ctx, sorted, deps, r.op)
	for _, o := range outcomes {
		if o.Status != outcome.Cancelled && o.Status != outcome.Skipped {
			t.Errorf("%s: %s, want cancelled (or skipped behind a cancelled stack)", o.Target.Stack, o.Status)
		}
	}
	if len(r.started) != 2 {
		t.Errorf("started %v after the cancel, want only the two that ran", r.started)
	}
}
