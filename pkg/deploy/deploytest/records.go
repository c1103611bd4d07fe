package deploytest

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// ReadsRecords is false: the fake keeps no storage to read records from, so its stacks are
// read as the Pulumi CLI reads a backend's, by opening them, and no fleet scan judges them.
func (b *Backend) ReadsRecords() bool { return false }

// Records says the fake's records are read through its stacks.
func (b *Backend) Records(context.Context, string, string) (stackstate.Records, error) {
	return stackstate.Records{}, stackstate.ErrRecordsUnread
}

// LastUpdate says the fake's history is read through its stacks.
func (b *Backend) LastUpdate(context.Context, string, string) (*stackstate.Update, error) {
	return nil, stackstate.ErrRecordsUnread
}

// RunsProviders is false: the fake's stacks run the programs against stand-ins, which need no
// cloud's token.
func (b *Backend) RunsProviders() bool { return false }

// ID names the fake backend in its stacks' marks: "deploytest:" and the name given (SetID), so
// that a test can hold two backends whose stacks of one name carry different marks.
func (b *Backend) ID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return "deploytest:" + b.id
}

// SetID names the backend in its stacks' marks (ID).
func (b *Backend) SetID(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.id = id
}
