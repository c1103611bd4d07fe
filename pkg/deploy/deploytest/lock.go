package deploytest

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// LockStack holds the stack's lock in memory, as a file or PostgreSQL backend holds it: a second
// taker is turned away at once.
func (b *Backend) LockStack(_ context.Context, project, stack string) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.noLock {
		return nil, stackstate.ErrNoStackLock
	}
	key := project + "/" + stack
	if b.locks[key] {
		return nil, &stackstate.StackBusyError{Holder: "another test's operation"}
	}
	b.locks[key] = true
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.locks, key)
	}, nil
}

// NoStackLock makes the backend one that cannot hold a stack's lock (an object store's).
func (b *Backend) NoStackLock() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.noLock = true
}

// Locked tells whether the stack's lock is held.
func (b *Backend) Locked(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.locks[key]
}

// PulumiLock says the stack's Pulumi lock is not known: the fake's stacks run no engine, so
// none holds one.
func (b *Backend) PulumiLock(context.Context, string, string) (held, known bool, cancel string, err error) {
	return false, false, "", nil
}

// LeaveDeadLock leaves on stack key the Pulumi lock that holder, a process of this machine that
// no longer runs, took as a killed up would: the stack's engine calls fail on it
// (stackstate.LockedError) until Cancel removes it.
func (b *Backend) LeaveDeadLock(key, holder string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		s.deadLock = holder
	}
}

// Locked says the stack's Pulumi lock is held when a dead process left one (LeaveDeadLock), and
// is not known otherwise: the fake's own calls hold none.
func (h *handle) Locked(context.Context) (locked, known bool, err error) {
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	return h.s.deadLock != "", h.s.deadLock != "", nil
}

// RemoveDeadLocks removes the lock a dead process left (LeaveDeadLock), recorded as the call
// "unlock", and names its process.
func (h *handle) RemoveDeadLocks(context.Context) (string, error) {
	b := h.s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	holder := h.s.deadLock
	if holder != "" {
		b.calls = append(b.calls, "unlock "+h.key())
		h.s.deadLock = ""
	}
	return holder, nil
}

// Cancel has no lock of its own to remove: the fake's calls hold none.
func (h *handle) Cancel(context.Context) error { return nil }

// CancelCommand is the Pulumi CLI's command that removes the stack's lock.
func (h *handle) CancelCommand() string { return "`pulumi cancel --stack " + h.Name() + " --yes`" }
