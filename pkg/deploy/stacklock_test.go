package deploy_test

import (
	"context"
	"errors"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// Promise: stack-lock-turns-away
func TestAnOperationOnAStackWhoseLockAnotherHoldsIsTurnedAwayBeforeTheEngineRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, d *deploy.Deployer, target deploytarget.Target) outcome.Outcome
	}{
		{"up", func(ctx context.Context, d *deploy.Deployer, target deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, target, deploy.UpOptions{Yes: true})
		}},
		{"refresh", func(ctx context.Context, d *deploy.Deployer, target deploytarget.Target) outcome.Outcome {
			return d.Refresh(ctx, target, deploy.RefreshOptions{})
		}},
		{"destroy", func(ctx context.Context, d *deploy.Deployer, target deploytarget.Target) outcome.Outcome {
			return d.Destroy(ctx, target, deploy.DestroyOptions{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			before := len(b.Calls())
			unlock, err := b.LockStack(ctx, c.Project, c.Stack)
			if err != nil {
				t.Fatal(err)
			}
			o := tc.run(ctx, d, c)
			var busy *stackstate.StackBusyError
			if o.Status != outcome.Failed || !errors.As(o.Err, &busy) || busy.Stack != c.Key() {
				t.Fatalf("%s under another's lock: %s %v, want turned away naming the stack", tc.name, o.Status, o.Err)
			}
			if got := b.Calls()[before:]; len(got) != 0 {
				t.Errorf("%s under another's lock ran %v, want nothing", tc.name, got)
			}
			unlock()
			if o := tc.run(ctx, d, c); o.Status == outcome.Failed {
				t.Errorf("%s once the lock is released: %s %v", tc.name, o.Status, o.Err)
			}
			if b.Locked(c.Key()) {
				t.Errorf("the stack is still locked after %s ended", tc.name)
			}
		})
	}
}

func TestTwoUpsOfOneStackStartedTogetherNeverRunAtOnce(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	// Each engine run takes a while, so that two ups not held apart would overlap.
	b.Delay(c.Key(), "update", 2*time.Millisecond)
	b.Delay(c.Key(), "refresh", 2*time.Millisecond)
	for i := 0; i < 100; i++ {
		var wg sync.WaitGroup
		outcomes := make([]outcome.Outcome, 2)
		for j := range outcomes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outcomes[j] = d.Up(ctx, c, deploy.UpOptions{Yes: true})
			}()
		}
		wg.Wait()
		for _, o := range outcomes {
			var busy *stackstate.StackBusyError
			if o.Status != outcome.Done && !errors.As(o.Err, &busy) {
				t.Fatalf("round %d: an up ended %s %v, want done or turned away", i, o.Status, o.Err)
			}
		}
	}
	if n := b.MaxRunning(); n != 1 {
		t.Errorf("at most %d engine runs at once on one stack, want 1", n)
	}
}

// Promise: rotation-refused-without-stack-lock
func TestAnUpThatRotatesNothingNeedsNoLockFromABackendThatCannotHoldOne(t *testing.T) {
	// An object store's backend cannot lock: an up that rotates nothing still deploys (the
	// rotation's own refusal is held by the e2e tests, which rotate on a real cluster).
	ctx := context.Background()
	d, b := deployer()
	b.NoStackLock()
	c := cluster(t)
	if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
		t.Fatalf("up without a rotation on a backend that cannot lock: %s %v, want done", o.Status, o.Err)
	}
}

// adopt writes the stack's state as up does, and is turned away alike while another holds it.
//
// Promise: stack-lock-turns-away
func TestAnAdoptOfAStackWhoseLockAnotherHoldsIsTurnedAwayBeforeAnythingRuns(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	unlock, err := b.LockStack(ctx, c.Project, c.Stack)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o := d.Adopt(ctx, c, "4d24060e", deploy.AdoptOptions{})
	var busy *stackstate.StackBusyError
	if o.Status != outcome.Failed || !errors.As(o.Err, &busy) || busy.Stack != c.Key() {
		t.Fatalf("adopt under another's lock: %s %v, want turned away naming the stack", o.Status, o.Err)
	}
	if got := b.Calls(); len(got) != 0 {
		t.Errorf("adopt under another's lock ran %v, want nothing", got)
	}
}
