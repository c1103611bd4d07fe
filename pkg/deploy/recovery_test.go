package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

func TestAPanicInOneStacksOperationFailsItNamingThePanicAndTheOthersFinish(t *testing.T) {
	sorted, deps := fleet(t)
	r := newRecorder()
	op := func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
		if t.Stack == "e-z" {
			var m map[string]int
			m["boom"]++ // a nil map: a bug
		}
		return r.op(ctx, t)
	}
	outcomes := queue.Queue{Parallel: 4}.Run(context.Background(), sorted, deps, op)
	for _, o := range outcomes {
		if o.Target.Stack != "e-z" {
			if o.Status != outcome.Done {
				t.Errorf("%s: %s, want done: a panic elsewhere stopped it", o.Target.Stack, o.Status)
			}
			continue
		}
		var panicked *stackstate.PanicError
		if o.Status != outcome.Failed || !errors.As(o.Err, &panicked) ||
			!strings.Contains(o.Err.Error(), "assignment to entry in nil map") || strings.Contains(o.Err.Error(), "goroutine") {
			t.Errorf("the panicking stack: %s %v, want failed naming the panic, no stack trace", o.Status, o.Err)
		}
	}
}

// lockedBackend is a fake backend whose stacks say their lock is held (as a file backend's do
// when the engine was killed holding it).
type lockedBackend struct{ *deploytest.Backend }

var _ stackstate.Backend = lockedBackend{}

type lockedStack struct{ stackstate.Stack }

func (lockedStack) Locked(context.Context) (bool, bool, error) { return true, true, nil }

func (b lockedBackend) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Open(ctx, project, stack, program)
	if err != nil {
		return nil, err
	}
	return lockedStack{s}, nil
}

// hang is an Op that runs until its context ends, as an engine waiting on the cloud does.
func hang(ctx context.Context, t deploytarget.Target) outcome.Outcome {
	<-ctx.Done()
	return outcome.Outcome{Status: outcome.Cancelled, Reason: "cancelled", Err: stackstate.ErrCancelled}
}

// Promise: pending-creates-refused-until-recorded
func TestAnInterruptedStackSaysItsLockItsPendingCreatesAndWhatToRun(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	clean := namedCluster(t, "clean", "x", "")
	mustUp(ctx, t, d, clean)
	b.Pend(c.Key(), clusterType, "dev-fra1-replacement")
	tests := []struct {
		name    string
		backend stackstate.Backend
		target  deploytarget.Target
		// says are what the error must say; none means it says only how the operation ended.
		says []string
	}{
		{"locked, a pending create", lockedBackend{b}, c, []string{"timed out", "the stack is still locked by it",
			"pulumi cancel --stack organization/" + c.Key(), "clusterplane refresh cluster.yaml --import-pending-create CLOUD_ID"}},
		{"a pending create, the lock unknown", b, c, []string{"if the stack is locked, remove its lock with",
			"--import-pending-create CLOUD_ID"}},
		{"neither", b, clean, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deploy.Deployer{Backend: tt.backend}
			q := queue.Queue{Parallel: 1, StackTimeout: 20 * time.Millisecond, Recovery: d.Recovery}
			o := q.Run(ctx, []deploytarget.Target{tt.target}, nil, hang)[0]
			var interrupted *stackstate.InterruptedError
			if got := errors.As(o.Err, &interrupted); got != (tt.says != nil) {
				t.Fatalf("%s %q %v: recovery advice %t, want %t", o.Status, o.Reason, o.Err, got, tt.says != nil)
			}
			if o.Status != outcome.Failed || !strings.Contains(o.Err.Error(), "did not end within 20ms") {
				t.Errorf("%s %v, want failed, timed out", o.Status, o.Err)
			}
			for _, s := range tt.says {
				if !strings.Contains(o.Err.Error(), s) && !strings.Contains(o.Reason, s) {
					t.Errorf("%q\ndoes not say %q", o.Err, s)
				}
			}
		})
	}
	// Ctrl-C: the same advice, and the outcome stays cancelled (exit 130).
	cancelled, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	o := queue.Queue{Parallel: 1, Recovery: (&deploy.Deployer{Backend: lockedBackend{b}}).Recovery}.Run(cancelled, []deploytarget.Target{c}, nil, hang)[0]
	if o.Status != outcome.Cancelled || !errors.Is(o.Err, stackstate.ErrCancelled) || !strings.Contains(o.Err.Error(), "pulumi cancel") {
		t.Errorf("after Ctrl-C: %s %v, want cancelled with the lock's advice", o.Status, o.Err)
	}
}

func TestAPendingCreatesAdviceNamesTheIdTheCloudHoldsSoTheUserNeedNotLookItUp(t *testing.T) {
	tests := []struct {
		name string
		// live is what the cloud holds under the name; nil lookup: the kind cannot look.
		live   []kinds.Live
		lookup bool
		says   []string
		never  []string
	}{
		{name: "the cloud holds one", lookup: true, live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-9"}},
			says: []string{"the cloud holds cluster dev-fra1 (id id-9)", "--import-pending-create id-9`"}, never: []string{"CLOUD_ID"}},
		{name: "the cloud holds none", lookup: true,
			says: []string{"the cloud holds none of the name", "--clear-pending-creates`"}, never: []string{"CLOUD_ID"}},
		{name: "the cloud holds two", lookup: true, live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-8"},
			{Type: "cluster", Name: "dev-fra1", ID: "id-9"}},
			says: []string{"2 clusters named dev-fra1 (id id-8, id id-9)", "--import-pending-create CLOUD_ID"}},
		{name: "the cloud cannot be asked", says: []string{"look the resource up in the cloud", "CLOUD_ID"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.Pend(c.Key(), clusterType, "dev-fra1")
			if tt.lookup {
				fake := &cloud{live: tt.live}
				c.Lookup = fake.lookup("")
			}
			o := d.Up(ctx, c, deploy.UpOptions{Yes: true})
			var pending *stackstate.PendingCreatesError
			if !errors.As(o.Err, &pending) {
				t.Fatalf("up with a pending create: %s %v", o.Status, o.Err)
			}
			advice := pending.Advice("cluster.yaml")
			for _, s := range tt.says {
				if !strings.Contains(advice, s) {
					t.Errorf("the advice does not say %q: %s", s, advice)
				}
			}
			for _, s := range tt.never {
				if strings.Contains(advice, s) {
					t.Errorf("the advice says %q: %s", s, advice)
				}
			}
		})
	}
}

func TestStatusAfterAFailedCreateAsksTheCloudOnceAndNamesTheIdToImport(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	fake := &cloud{live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-9"}}}
	// The create fails in the engine, and leaves its create pending: the stack's last update
	// failed and it holds no id, so status looks for what the create left.
	b.Fail(c.Key(), "update", errors.New("the cloud answered 500"))
	if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Failed {
		t.Fatalf("up with a failing engine: %s %v", o.Status, o.Err)
	}
	b.Pend(c.Key(), clusterType, "dev-fra1")
	c.Lookup = fake.lookup("")
	o := d.Status(ctx, c, deploy.StatusOptions{})
	if fake.asked != 1 {
		t.Errorf("status asked the cloud %d times, want once", fake.asked)
	}
	var message string
	for _, cond := range o.Report.Conditions {
		if cond.Type == "Ready" {
			message = string(cond.Reason) + ": " + cond.Message
		}
	}
	if !strings.HasPrefix(message, "PendingCreates: ") || !strings.Contains(message, "--import-pending-create id-9`") {
		t.Errorf("status's Ready does not name the id to import: %s", message)
	}
}

func TestAnUpCancelledAfterItsStepsEndedSaysToRunItAgain(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	tests := []struct {
		name string
		// result: the engine ran (an up), or the operation never reached it.
		result *stackstate.Result
		says   bool
	}{
		{"an up the engine ended cleanly", &stackstate.Result{}, true},
		{"an operation that never reached the engine", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled, cancel := context.WithCancel(ctx)
			time.AfterFunc(20*time.Millisecond, cancel)
			op := func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
				<-ctx.Done()
				return outcome.Outcome{Status: outcome.Cancelled, Reason: "cancelled", Err: stackstate.ErrCancelled, Result: tt.result}
			}
			o := queue.Queue{Parallel: 1, Recovery: d.Recovery}.Run(cancelled, []deploytarget.Target{c}, nil, op)[0]
			if got := strings.Contains(o.Reason, "run it again to finish"); got != tt.says || o.Status != outcome.Cancelled {
				t.Errorf("%s %q: says to run it again %t, want %t", o.Status, o.Reason, got, tt.says)
			}
		})
	}
}

// lockReading is a backend that reads its records itself and says its stacks' Pulumi locks are
// held, as a file or PostgreSQL backend says the lock a killed up left.
type lockReading struct{ *recordReading }

var _ stackstate.Backend = lockReading{}

func (lockReading) PulumiLock(context.Context, string, string) (bool, bool, string, error) {
	return true, true, "`pulumi cancel --stack organization/p/s --yes`", nil
}

func TestStatusOfAChangedManifestSaysWhenTheStacksLockIsHeld(t *testing.T) {
	tests := []struct {
		name     string
		backend  func(*deploytest.Backend) stackstate.Backend
		wantLock bool
	}{
		{"a free stack is told to run up, nothing more", func(b *deploytest.Backend) stackstate.Backend { return b }, false},
		{"a stack opened to be read says its lock", func(b *deploytest.Backend) stackstate.Backend { return lockedBackend{b} }, true},
		{"a backend whose records are read says its lock without opening the stack",
			func(b *deploytest.Backend) stackstate.Backend { return lockReading{&recordReading{Backend: b}} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := namedCluster(t, "platform", "prod", "")
			mustUp(ctx, t, d, c)
			d.Backend = tt.backend(b)
			changed := target(t, "platform.yaml", strings.Replace(mustText(t, c), "nodeCount: 2", "nodeCount: 3", 1))
			ready := d.Status(ctx, changed, deploy.StatusOptions{}).Report.Condition("Ready")
			said := strings.Contains(ready.Message, "the stack is locked") && strings.Contains(ready.Message, "pulumi cancel --stack")
			if ready.Reason != "ManifestChanged" || said != tt.wantLock {
				t.Errorf("Ready %+v; want ManifestChanged, the lock said: %t", ready, tt.wantLock)
			}
		})
	}
}
