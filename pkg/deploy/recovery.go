package deploy

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// Locker is a Stack that can tell whether its lock is held: a file backend's stacks can (their
// locks are files), others cannot, and say so with known false.
type Locker interface {
	Locked(ctx context.Context) (locked, known bool, err error)
}

// Recovery reads what an interrupted operation left the target's stack needing, as Status reads
// it: an *InterruptedError when the stack is locked or has pending operations, nil when it has
// neither (or cannot be read: the operation's own error stands then). Queue.Recovery takes it.
// It does not ask the cloud: the interrupted operation's own look-up (Outcome.Unmanaged) is used.
func (d *Deployer) Recovery(ctx context.Context, t Target) error {
	s, err := d.open(ctx, t)
	if err != nil {
		return nil
	}
	defer s.Close()
	st, err := readState(ctx, s)
	if err != nil {
		return nil
	}
	left := leftovers(ctx, s, st)
	if !left.Locked && len(left.Creates) == 0 && left.Others == 0 {
		return nil
	}
	return &InterruptedError{File: t.File, Leftovers: left}
}

// leftovers reads what the stack holds of an interrupted operation: its lock (when the backend
// can tell) and its pending operations. The cloud is not asked.
func leftovers(ctx context.Context, s Stack, st state) Leftovers {
	l := Leftovers{Creates: st.pendingCreates(), Cancel: cancelCommand(s)}
	for _, op := range st.d.PendingOperations {
		if op.Type != apitype.OperationTypeCreating {
			l.Others++
		}
	}
	if lk, ok := s.(Locker); ok {
		if locked, known, err := lk.Locked(ctx); err == nil && known {
			l.Locked, l.LockKnown = locked, true
		}
	}
	return l
}

// pendingCreates is the refusal of a stack with creates left pending, saying what clusterplane can
// find out for the user: whether the stack is still locked, and what the cloud holds of the
// manifest's name that the stack does not (the id to import), asked unless known already.
func (d *Deployer) pendingCreates(ctx context.Context, t Target, s Stack, st state, known *lookup) *PendingCreatesError {
	e := &PendingCreatesError{Leftovers: leftovers(ctx, s, st)}
	if known == nil {
		known = d.look(ctx, t, st)
	}
	e.Found, e.Looked = known.live, known.looked
	return e
}
