package queue

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Queue runs an operation over many targets: each after the stacks it references (before them
// when Reverse, as destroy needs), at most Parallel at once, each within StackTimeout.
type Queue struct {
	// Parallel is how many targets run at once; at least 1.
	Parallel int
	// Reverse runs dependants first: destroy deletes a pool before its cluster.
	Reverse bool
	// StackTimeout bounds one target's operation; 0 for none.
	StackTimeout time.Duration
	// SkipBlocked skips the dependants of a blocked target too: for up, a refused or unconfirmed
	// stack did not deploy.
	SkipBlocked bool
	// Recovery, when set, reads what an operation interrupted by its deadline or by Ctrl-C left
	// its stack needing (Deployer.Recovery does): its error then says it, and what to run.
	Recovery func(ctx context.Context, t deploytarget.Target) error
}

// Run runs op on every target of an order (see Order) and returns their outcomes in that order.
// A failure (or, with SkipBlocked, a block) skips the targets that wait for it, and nothing else.
// When ctx ends, running operations are interrupted and the targets not started are cancelled.
func (q Queue) Run(ctx context.Context, sorted []deploytarget.Target, deps map[string][]string, op outcome.StackFunc) []outcome.Outcome {
	r := newQueueRun(q, sorted, deps)
	for {
		r.mu.Lock()
		if ctx.Err() != nil {
			r.cancelUnstarted()
		}
		r.startReady(ctx, op)
		all := len(r.done) == len(sorted)
		r.mu.Unlock()
		if all {
			break
		}
		select {
		case <-r.finished:
		case <-ctx.Done():
			// Loop once more to cancel what has not started; running targets end on their own.
			select {
			case <-r.finished:
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	r.wg.Wait()
	out := make([]outcome.Outcome, len(sorted))
	for i, k := range r.keys {
		out[i] = *r.done[k]
	}
	return out
}

// waits are the stacks each waits for: its dependencies, or for Reverse its dependants.
func (q Queue) waits(deps map[string][]string) map[string][]string {
	waits := map[string][]string{}
	for k, ds := range deps {
		for _, d := range ds {
			if q.Reverse {
				waits[d] = append(waits[d], k)
			} else {
				waits[k] = append(waits[k], d)
			}
		}
	}
	return waits
}

// queueRun is one Run of the queue: which targets started, which are done and how, guarded by
// mu; finished is told each time a target's operation ends.
//
// Each step looks only at the targets that may start or be skipped now (movable, by their place
// in the order), not at every target: a target moves when all it waits for are done, or one of
// them stopped. A fleet of N stacks is then run in N steps of a few targets each, not N passes
// over N targets.
type queueRun struct {
	q      Queue
	sorted []deploytarget.Target
	keys   []string       // each target's key, by its place in sorted
	at     map[string]int // each target's place in sorted, by key
	waits  map[string][]string
	// waitedBy are the places of the targets that wait for each, by its place; unfinished counts
	// what each waits for that is not done; stopped marks those one of whose waits stopped.
	waitedBy   [][]int
	unfinished []int
	stopped    []bool
	// movable holds the places of the targets not started that may move now, least first;
	// queued marks them. A target skipped in a step moves those that wait for it in the same
	// step, wherever they are in the order: destroy's waits point back in it, and a pass over
	// the order that left them to the next step hung when nothing else ran to start one.
	movable intHeap
	queued  []bool

	mu       sync.Mutex
	done     map[string]*outcome.Outcome
	started  map[string]bool
	running  int
	finished chan struct{}
	wg       sync.WaitGroup
}

func newQueueRun(q Queue, sorted []deploytarget.Target, deps map[string][]string) *queueRun {
	n := len(sorted)
	r := &queueRun{q: q, sorted: sorted, keys: make([]string, n), at: make(map[string]int, n), waits: q.waits(deps),
		waitedBy: make([][]int, n), unfinished: make([]int, n), stopped: make([]bool, n), queued: make([]bool, n),
		done: map[string]*outcome.Outcome{}, started: map[string]bool{}, finished: make(chan struct{}, n)}
	for i, t := range sorted {
		r.keys[i] = t.Key()
		r.at[r.keys[i]] = i
	}
	for i, k := range r.keys {
		for _, w := range r.waits[k] {
			r.unfinished[i]++
			if j, ok := r.at[w]; ok {
				r.waitedBy[j] = append(r.waitedBy[j], i)
			}
		}
		if r.unfinished[i] == 0 {
			r.queue(i)
		}
	}
	return r
}

// stops tells that an outcome keeps the targets that wait for it from running.
func (r *queueRun) stops(o *outcome.Outcome) bool {
	return o.Status == outcome.Failed || o.Status == outcome.Skipped || o.Status == outcome.Cancelled || r.q.SkipBlocked && o.Status == outcome.Blocked
}

// cancelUnstarted cancels every target not started. r.mu is held.
func (r *queueRun) cancelUnstarted() {
	for i, t := range r.sorted {
		if k := r.keys[i]; !r.started[k] {
			r.started[k] = true
			o := &outcome.Outcome{Target: t, Status: outcome.Cancelled, Err: stackstate.ErrCancelled}
			o.SayReason(outcome.SaysItself, "cancelled before it started", "")
			r.done[k] = o
		}
	}
}

// queue marks the target at place i as one that may move.
func (r *queueRun) queue(i int) {
	if r.queued[i] {
		return
	}
	r.queued[i] = true
	heap.Push(&r.movable, i)
}

// finish records the outcome of the target at place i and tells those that wait for it. r.mu is
// held.
func (r *queueRun) finish(i int, o *outcome.Outcome) {
	r.done[r.keys[i]] = o
	stops := r.stops(o)
	for _, j := range r.waitedBy[i] {
		r.unfinished[j]--
		r.stopped[j] = r.stopped[j] || stops
		if (r.unfinished[j] == 0 || r.stopped[j]) && !r.started[r.keys[j]] {
			r.queue(j)
		}
	}
}

// startReady starts, up to the queue's parallel, the targets whose waits are done, and skips
// those one of whose waits stopped, in their order. r.mu is held.
func (r *queueRun) startReady(ctx context.Context, op outcome.StackFunc) {
	parallel := max(r.q.Parallel, 1)
	for r.running < parallel && r.movable.Len() > 0 {
		i := heap.Pop(&r.movable).(int)
		r.queued[i] = false
		t, key := r.sorted[i], r.keys[i]
		if r.started[key] {
			continue
		}
		ready, blocker := true, ""
		for _, w := range r.waits[key] {
			o, ok := r.done[w]
			switch {
			case !ok:
				ready = false
			case r.stops(o):
				blocker = w
			}
		}
		if blocker != "" {
			r.started[key] = true
			o := &outcome.Outcome{Target: t, Status: outcome.Skipped, BlockedBy: blocker}
			o.SayReason(outcome.SaysFirst, "skipped: ", blocker+" did not deploy")
			r.finish(i, o)
			continue
		}
		if !ready {
			continue
		}
		r.started[key] = true
		r.running++
		r.wg.Add(1)
		go func(i int, t deploytarget.Target) {
			defer r.wg.Done()
			o := r.q.run(ctx, t, op)
			r.mu.Lock()
			r.finish(i, &o)
			r.running--
			r.mu.Unlock()
			r.finished <- struct{}{}
		}(i, t)
	}
}

// intHeap is a min-heap of places in the order (container/heap).
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// run runs op on t within the stack deadline and says how it ended when op could not. An
// operation interrupted by its deadline or by ctx says, when Recovery finds any, what it left
// the stack needing (a lock, pending operations) and what to run.
func (q Queue) run(ctx context.Context, t deploytarget.Target, op outcome.StackFunc) outcome.Outcome {
	start := time.Now()
	// Always cancellable: a panicking operation stops what it started (the engine) on its way out.
	opCtx, cancel := context.WithCancel(ctx)
	if q.StackTimeout > 0 {
		opCtx, cancel = context.WithTimeout(ctx, q.StackTimeout)
	}
	defer cancel()
	o := safely(opCtx, t, op)
	o.Target, o.Took = t, time.Since(start)
	interrupted := o.Status == outcome.Cancelled
	switch {
	case o.Status == "":
		o.Status = outcome.Done
	case o.Status == outcome.Cancelled && ctx.Err() == nil && errors.Is(opCtx.Err(), context.DeadlineExceeded):
		o.Status = outcome.Failed
		o.SayReason(outcome.SaysNot, "timed out after "+q.StackTimeout.String(), "")
		timeout := errors.Errorf("the operation did not end within %s (the stack's deadline)", q.StackTimeout)
		var left *outcome.LeftBehindError
		if errors.As(o.Err, &left) {
			left.Cause, timeout = timeout, left
		}
		o.Err = timeout
	}
	if interrupted && q.Recovery != nil {
		o = recovered(ctx, t, o, q.Recovery)
	}
	return o
}

// recoveryTimeout bounds the reading of an interrupted stack's state: after Ctrl-C the user
// waits for it.
const recoveryTimeout = 30 * time.Second

// recovered adds to an interrupted operation's outcome what recovery finds the stack needing.
func recovered(ctx context.Context, t deploytarget.Target, o outcome.Outcome, recovery func(context.Context, deploytarget.Target) error) outcome.Outcome {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recoveryTimeout)
	defer cancel()
	var interrupted *stackstate.InterruptedError
	err := recovery(rctx, t)
	if err == nil && o.Status == outcome.Cancelled && o.Result != nil {
		// The engine ended the steps it had begun and let go of the stack: what they made is in
		// it, and nothing waits to be recovered. The same command finishes the rest.
		o.AddToReason("; ", "the engine finished the steps it had begun and nothing is left pending: run it again to finish")
	}
	if errors.As(err, &interrupted) {
		interrupted.Cause = o.Err
		if len(o.Unmanaged) > 0 {
			// The operation's own guard asked the cloud and found these: the ids to import.
			interrupted.Found, interrupted.Looked = o.Unmanaged, true
		}
		var left *outcome.LeftBehindError
		if errors.As(o.Err, &left) && len(interrupted.Creates) > 0 {
			// A create left pending is recorded with its id (refresh), not adopted: the advice says so.
			interrupted.Cause = left.Cause
		}
		if interrupted.Cause == nil {
			interrupted.Cause = stackstate.ErrCancelled
		}
		o.Err = interrupted
		o.AddToReason("; ", interrupted.Left())
	}
	return o
}

// safely runs op, and turns a panic into a failed outcome that names it: the other stacks'
// operations go on to their end (and release their locks), where a panic would kill the
// process in the middle of them.
func safely(ctx context.Context, t deploytarget.Target, op outcome.StackFunc) (o outcome.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome.Outcome{Target: t, Status: outcome.Failed, Err: &stackstate.PanicError{Value: fmt.Sprint(r)}}
			o.SayReason(outcome.SaysFirst, "failed: ", "clusterplane panicked")
		}
	}()
	return op(ctx, t)
}

// Distinct drops each target that deploys the very manifest another deploys to the same stack: a
// manifest and its stack-input form (examples/ holds both of each) are one stack, deployed once,
// from the bare manifest. A stack input whose providerConfig says anything is another target.
func Distinct(targets []deploytarget.Target) []deploytarget.Target {
	var out []deploytarget.Target
	at := map[string]int{}
	for _, t := range targets {
		i, seen := at[t.Key()]
		if !seen || t.Input == nil || out[i].Input == nil || !proto.Equal(bare(t.Input), bare(out[i].Input)) {
			at[t.Key()] = len(out)
			out = append(out, t)
			continue
		}
		if !hasProviderConfig(t.Input) && hasProviderConfig(out[i].Input) {
			out[i] = t
		}
	}
	return out
}

// bare is a stack input without an empty providerConfig, as a bare manifest is read.
func bare(input proto.Message) proto.Message {
	m := proto.Clone(input).ProtoReflect()
	if fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputProviderConfig); fd != nil && m.Has(fd) && proto.Size(m.Get(fd).Message().Interface()) == 0 {
		m.Clear(fd)
	}
	return m.Interface()
}

// hasProviderConfig tells whether input was written with a providerConfig, even an empty one.
func hasProviderConfig(input proto.Message) bool {
	m := input.ProtoReflect()
	fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputProviderConfig)
	return fd != nil && m.Has(fd)
}

// Order sorts targets so that every stack comes after the stacks it references, and returns each
// target's dependencies among them, by key. A reference to a stack no target deploys must name an
// existing stack (exists answers); a cycle, two targets of one stack, or a reference to nothing is
// an error naming both ends.
func Order(targets []deploytarget.Target, exists func(key string) (bool, error)) ([]deploytarget.Target, map[string][]string, error) {
	targets = Distinct(targets)
	byKey := map[string]deploytarget.Target{}
	var twice []string // every pair at once, as validate says every problem
	for _, t := range targets {
		if other, ok := byKey[t.Key()]; ok {
			twice = append(twice, fmt.Sprintf("%s and %s both deploy stack %s: give only one of them", other.File, t.File, t.Key()))
			continue
		}
		byKey[t.Key()] = t
	}
	if len(twice) > 0 {
		return nil, nil, errors.New(strings.Join(twice, "\n"))
	}
	deps := map[string][]string{}
	for _, t := range targets {
		for _, ref := range deploytarget.References(t.Input) {
			if _, ok := byKey[ref]; ok {
				deps[t.Key()] = append(deps[t.Key()], ref)
				continue
			}
			found, err := exists(ref)
			if err != nil {
				return nil, nil, errors.Wrapf(err, "%s references stack %s, which no manifest given deploys", t.File, ref)
			}
			if !found {
				return nil, nil, errors.Errorf("%s references stack %s, which no manifest given deploys and which does not exist: "+
					"give its manifest too, or deploy it first", t.File, ref)
			}
		}
	}
	var sorted []deploytarget.Target
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(key, from string) error
	visit = func(key, from string) error {
		switch state[key] {
		case 1:
			return errors.Errorf("%s and %s reference each other (a cycle through stack %s)", byKey[from].File, byKey[key].File, key)
		case 2:
			return nil
		}
		state[key] = 1
		for _, dep := range deps[key] {
			if err := visit(dep, key); err != nil {
				return err
			}
		}
		state[key] = 2
		sorted = append(sorted, byKey[key])
		return nil
	}
	for _, t := range targets {
		if err := visit(t.Key(), t.Key()); err != nil {
			return nil, nil, err
		}
	}
	return sorted, deps, nil
}

// Dependants are the keys of the targets that reference key, directly or through others, among
// deps (as Order returns them), sorted.
func Dependants(deps map[string][]string, key string) []string {
	seen := map[string]bool{}
	var visit func(k string)
	visit = func(k string) {
		for dependant, ds := range deps {
			for _, d := range ds {
				if d == k && !seen[dependant] {
					seen[dependant] = true
					visit(dependant)
				}
			}
		}
	}
	visit(key)
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
