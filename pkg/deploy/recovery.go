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
func (d *Deployer) Recovery(ctx context.Context, t Target) error {
	s, err := d.Backend.Open(ctx, t.Project, t.Stack, t.Program())
	if err != nil {
		return nil
	}
	defer s.Close()
	st, err := readState(ctx, s)
	if err != nil {
		return nil
	}
	e := &InterruptedError{File: t.File, Creates: st.pendingCreates(), Cancel: cancelCommand(s), LockUnknown: true}
	for _, op := range st.d.PendingOperations {
		if op.Type != apitype.OperationTypeCreating {
			e.Others++
		}
	}
	if l, ok := s.(Locker); ok {
		if locked, known, err := l.Locked(ctx); err == nil && known {
			e.Locked, e.LockUnknown = locked, false
		}
	}
	if !e.Locked && len(e.Creates) == 0 && e.Others == 0 {
		return nil
	}
	return e
}

// pendingCreates is the refusal of a stack with creates left pending, saying what clusterplane can
// find out for the user: whether the stack is still locked, and what the cloud holds of the
// manifest's name that the stack does not (the id to import).
func (d *Deployer) pendingCreates(ctx context.Context, t Target, s Stack, st state) *PendingCreatesError {
	e := &PendingCreatesError{Creates: st.pendingCreates(), Cancel: cancelCommand(s)}
	if l, ok := s.(Locker); ok {
		if locked, known, err := l.Locked(ctx); err == nil && known {
			e.Locked, e.LockKnown = locked, true
		}
	}
	e.Found, e.Looked = d.lookedUp(ctx, t, st)
	return e
}
