package deploy

import (
	"context"
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/pkg/errors"
)

// StackLocker is a Backend that holds a stack's lock across the several engine runs of one
// operation. Pulumi's own lock is taken and released by each engine run, so that between the runs
// of one up (a rotation's record, its cloud calls, the refresh and the up that follow) another
// up of the same stack could start its own rotation: two surge pools, one record. The lock lives
// in the backend (a file backend's folder, a PostgreSQL backend's database), so that two machines
// sharing one backend are held apart too, and it goes with the process that holds it: a killed
// process leaves no lock to remove.
type StackLocker interface {
	// LockStack takes the lock of stack <project>/<stack>, or returns a *StackBusyError at once
	// when another holds it; ErrNoStackLock when the backend cannot hold one. unlock releases it.
	LockStack(ctx context.Context, project, stack string) (unlock func(), err error)
}

// ErrNoStackLock: the backend cannot hold a stack's lock across operations (an object-store
// backend: s3, gs, azblob).
var ErrNoStackLock = errors.New("the backend cannot hold a stack's lock across operations")

// StackBusyError: another clusterplane operation holds the stack's lock.
type StackBusyError struct {
	// Stack is the stack's key; Holder says who holds the lock, as far as the backend tells
	// ("pid 4242 on ci-runner-3 since 10:02:11 UTC"), "" when it does not.
	Stack, Holder string
}

func (e *StackBusyError) Error() string {
	holder := ""
	if e.Holder != "" {
		holder = " (" + e.Holder + ")"
	}
	return fmt.Sprintf("stack %s is busy: another clusterplane operation on it holds its lock%s. Wait for it to end, then "+
		"run this again. This lock ends with its process; a killed one may leave Pulumi's own lock of the stack, "+
		"which the next run names with the command that removes it", e.Stack, holder)
}

// lockStack takes t's stack lock when the backend can hold one. held tells whether it does: a
// rotation, whose steps span several engine runs, starts only under it.
func (d *Deployer) lockStack(ctx context.Context, t deploytarget.Target) (unlock func(), held bool, err error) {
	locker, ok := d.Backend.(StackLocker)
	if !ok {
		return func() {}, false, nil
	}
	unlock, err = locker.LockStack(ctx, t.Project, t.Stack)
	if errors.Is(err, ErrNoStackLock) {
		return func() {}, false, nil
	}
	if err != nil {
		var busy *StackBusyError
		if errors.As(err, &busy) {
			busy.Stack = t.Key()
			return nil, false, busy
		}
		return nil, false, errors.Wrapf(err, "lock stack %s", t.Key())
	}
	return unlock, true, nil
}
