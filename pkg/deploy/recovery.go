package deploy

import (
	"context"
	"fmt"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// recovering is how status, up and TakeOver read a stuck stack's lock and pending creates, and
// take a pending create over. It holds the stacks it opens and the look-up of what the cloud holds
// of a pending create.
type recovering struct {
	stacks   stacks
	creating createguard.Creating
}

// newRecovering is the deployer's recovering step.
func newRecovering(d *Deployer) recovering {
	return recovering{stacks: d.stacks(), creating: createguard.New(d.Backend)}
}

// clearDeadLock removes the Pulumi locks an operation killed on this machine left on stack s
// when the deployer holds clusterplane's own lock of it (held): no clusterplane command runs on
// the stack then, and the locks' processes no longer run, so the locks hold back nothing but the
// next run, which would otherwise stop until someone ran `pulumi cancel`.
func (d *Deployer) clearDeadLock(ctx context.Context, t deploytarget.Target, s stackstate.Stack, held bool) error {
	if !held {
		return nil
	}
	removed, err := s.RemoveDeadLocks(ctx)
	if err != nil || removed == "" {
		return err
	}
	d.sayOnce(fmt.Sprintf("%s: removed the Pulumi lock that %s, no longer running, left on stack %s", t.File, removed, t.Key()))
	return nil
}

// lockNote is what status adds to a Ready condition that asks for a command when the stack's
// Pulumi lock is held: that command would be refused until the operation holding it ends, or
// until someone removes the lock a killed one left. "" when the lock is free or cannot be read.
func (d recovering) lockNote(ctx context.Context, t deploytarget.Target, s stackstate.Stack) string {
	var held, known bool
	var cancel string
	if s != nil {
		held, known, _ = s.Locked(ctx)
		cancel = s.CancelCommand()
	} else {
		held, known, cancel, _ = d.stacks.backend.PulumiLock(ctx, t.Project, t.Stack)
	}
	if !held || !known {
		return ""
	}
	return "; but the stack is locked: an operation on it is still running, or was killed holding its lock. " +
		"If none runs, remove the lock with " + cancel + " first"
}

// Recovery reads what an interrupted operation left the target's stack needing, as Status reads
// it: an *InterruptedError when the stack is locked or has pending operations, nil when it has
// neither (or cannot be read: the operation's own error stands then). Queue.Recovery takes it.
// It does not ask the cloud: the interrupted operation's own look-up (Outcome.Unmanaged) is used.
func (d *Deployer) Recovery(ctx context.Context, t deploytarget.Target) error {
	s, err := d.stacks().open(ctx, t)
	if err != nil {
		return nil
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		return nil
	}
	left := leftovers(ctx, s, st)
	if !left.Locked && len(left.Creates) == 0 && left.Others == 0 {
		return nil
	}
	return &stackstate.InterruptedError{File: t.File, Leftovers: left}
}

// leftovers reads what the stack holds of an interrupted operation: its lock (when the backend
// can tell) and its pending operations. The cloud is not asked.
func leftovers(ctx context.Context, s stackstate.Stack, st stackstate.State) stackstate.Leftovers {
	l := stackstate.Leftovers{Creates: st.PendingCreates(), Cancel: s.CancelCommand()}
	for _, op := range st.Deployment.PendingOperations {
		if op.Type != apitype.OperationTypeCreating {
			l.Others++
		}
	}
	if locked, known, err := s.Locked(ctx); err == nil && known {
		l.Locked, l.LockKnown = locked, true
	}
	return l
}

// pendingCreates is the refusal of a stack with creates left pending, saying what clusterplane can
// find out for the user: whether the stack is still locked, and what the cloud holds of the
// manifest's name that the stack does not (the id to import), asked unless known already.
func (d recovering) pendingCreates(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, known *createguard.Lookup) *stackstate.PendingCreatesError {
	e := &stackstate.PendingCreatesError{Leftovers: leftovers(ctx, s, st)}
	if known == nil {
		known = d.creating.Look(ctx, t, st)
	}
	e.Found, e.Looked = known.Live, known.Looked
	return e
}

// TakeOver mends a stack whose last operation died with its process, for a caller that knows it
// did: a service's worker that was given the job of a worker found dead. Without it, every later
// up is refused until someone runs the commands the refusal names. Under the stack's lock (so no
// live clusterplane operation is in the way) it removes the engine's lock that operation left,
// then refreshes the stack, recording the one resource the cloud holds of each create left
// pending (the look-up's id), or forgetting the creates the cloud holds none of. A create whose
// look-up finds several, or a cloud that does not answer, is left as it is, refused with what to
// do: a guess there could take what is not the stack's.
func (d *Deployer) TakeOver(ctx context.Context, t deploytarget.Target) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	unlock, _, err := d.stacks().lockStack(ctx, t)
	if err != nil {
		return failed(err)
	}
	opts, err := newRecovering(d).takeOver(ctx, t)
	unlock() // Refresh takes it again
	if err != nil {
		return failed(err)
	}
	if opts == nil {
		return outcome.Outcome{Status: outcome.Done, Reason: "nothing left pending"}
	}
	return d.Refresh(ctx, t, *opts)
}

// takeOver removes the engine's lock and says the refresh that settles the pending creates; nil
// when there are none.
func (d recovering) takeOver(ctx context.Context, t deploytarget.Target) (*RefreshOptions, error) {
	s, err := d.stacks.open(ctx, t)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	left := leftovers(ctx, s, st)
	if left.Locked || !left.LockKnown {
		// Where the backend cannot say whether it is locked, cancel anyway: "nothing to cancel"
		// is no failure then.
		if err := s.Cancel(ctx); err != nil && left.Locked {
			return nil, errors.Wrapf(err, "remove the lock the interrupted operation left on %s", t.Key())
		}
	}
	if len(left.Creates) == 0 {
		return nil, nil
	}
	pending := d.pendingCreates(ctx, t, s, st, nil)
	switch {
	case pending.Looked && len(pending.Found) == 0:
		return &RefreshOptions{ClearPendingCreates: true}, nil
	case pending.Looked && len(pending.Found) == 1 && len(left.Creates) == 1:
		return &RefreshOptions{ImportPendingCreates: []string{left.Creates[0].URN + "=" + pending.Found[0].ID}}, nil
	}
	return nil, pending
}
