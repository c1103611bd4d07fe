package deploy

import (
	"context"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// stacks opens, locks and reads the history of targets' stacks through the backend. A step of an
// operation that opens a stack holds one of these, not the whole Deployer, so that what it can
// reach is the backend and nothing else of the run.
type stacks struct{ backend stackstate.Backend }

// openOrCreate opens the target's stack, creating it when it does not exist (created tells).
func (d stacks) openOrCreate(ctx context.Context, t deploytarget.Target) (s stackstate.Stack, created bool, err error) {
	t = t.MarkedIn(d.backend)
	s, err = d.backend.Open(ctx, t.Project, t.Stack, t.Program())
	if errors.Is(err, stackstate.ErrNotDeployed) {
		s, err = d.backend.Create(ctx, t.Project, t.Stack, t.Program())
		created = err == nil
	}
	if err == nil {
		if err = shareSecrets(ctx, s, t); err != nil {
			forget(ctx, s, created)
			_ = s.Close()
			return nil, false, err
		}
	}
	return s, created, err
}

// openAsDeployed opens t's stack with a program deploying what the returned pointer holds: t
// until the caller puts t as its last up deployed it there (deploytarget.AsDeployed).
func (d stacks) openAsDeployed(ctx context.Context, t deploytarget.Target) (stackstate.Stack, *deploytarget.Target, error) {
	t = t.MarkedIn(d.backend)
	program := &t
	s, err := d.backend.Open(ctx, t.Project, t.Stack, func(c *pulumi.Context) error { return program.Program()(c) })
	if err != nil {
		return nil, nil, err
	}
	if err := shareSecrets(ctx, s, t); err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	return s, program, nil
}

// open opens the target's stack, ErrNotDeployed when it does not exist.
func (d stacks) open(ctx context.Context, t deploytarget.Target) (stackstate.Stack, error) {
	t = t.MarkedIn(d.backend)
	s, err := d.backend.Open(ctx, t.Project, t.Stack, t.Program())
	if err != nil {
		return nil, err
	}
	if err := shareSecrets(ctx, s, t); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// exists tells, through the backend, whether the stack of a reference's key (project/stack)
// exists.
func (d stacks) exists(ctx context.Context) func(key string) (bool, error) {
	return func(key string) (bool, error) {
		project, stack, _ := strings.Cut(key, "/")
		return d.backend.Exists(ctx, project, stack)
	}
}

// leftByAdoption reads, when called, the fields the stack's last update left for the next up
// when that update was an adoption (adoptionLeft). Only the report's wording depends on it: a
// history that cannot be read leaves every difference said as put back.
func (d stacks) leftByAdoption(ctx context.Context, t deploytarget.Target, s stackstate.Stack) func() []string {
	return func() []string {
		last, err := d.lastUpdateOf(ctx, t, s)
		if err != nil {
			return nil
		}
		return fielddrift.AdoptionLeft(last)
	}
}

// lastUpdateOf is the stack's last update or destroy: from the backend's history where it can be
// read so (Backend.Records, a file read, the state left unread), else through the opened stack.
func (d stacks) lastUpdateOf(ctx context.Context, t deploytarget.Target, s stackstate.Stack) (*stackstate.Update, error) {
	last, err := d.backend.LastUpdate(ctx, t.Project, t.Stack)
	switch {
	case err == nil:
		return last, nil
	case !errors.Is(err, stackstate.ErrRecordsUnread) && !errors.Is(err, stackstate.ErrNotDeployed):
		return nil, err
	}
	return s.LastUpdate(ctx)
}

// lockStack takes t's stack lock when the backend can hold one. held tells whether it does: a
// rotation, whose steps span several engine runs, starts only under it.
func (d stacks) lockStack(ctx context.Context, t deploytarget.Target) (unlock func(), held bool, err error) {
	unlock, err = d.backend.LockStack(ctx, t.Project, t.Stack)
	if errors.Is(err, stackstate.ErrNoStackLock) {
		return func() {}, false, nil
	}
	if err != nil {
		var busy *stackstate.StackBusyError
		if errors.As(err, &busy) {
			busy.Stack = t.Key()
			return nil, false, busy
		}
		return nil, false, errors.Wrapf(err, "lock stack %s", t.Key())
	}
	return unlock, true, nil
}

// lastUpdate is the stack's last update, nil when the stack or its update does not exist.
func (d stacks) lastUpdate(ctx context.Context, t deploytarget.Target) (*stackstate.Update, error) {
	s, err := d.open(ctx, t)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.LastUpdate(ctx)
}
