package stackstate

import (
	"fmt"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// Records are what a stack's operations left in the backend's storage: its state (as `pulumi
// stack export` writes it) and its last update or destroy (as its history says).
type Records struct {
	State apitype.UntypedDeployment
	// Deployment is State parsed, when the reader parsed it as it read it; nil: StackState parses it.
	Deployment *apitype.DeploymentV3
	// Last is nil when the stack has no update or destroy yet.
	Last *Update
	// Newest is the kind of the newest record of the stack's history, whatever it is ("refresh"
	// after a refresh, which rewrites the state from the cloud); "" when it has none.
	Newest string
	// WrittenSinceRecord tells that the state was written after the newest record of the
	// history (a `pulumi stack import`, a state edit), so no record says what wrote it.
	WrittenSinceRecord bool
	// Keep keeps the state these records hold, parsed, for the stack's next opening: its first
	// State then returns it while the stored bytes are still those read here, parsing nothing.
	// The fleet scan keeps the states of the stacks it leaves to run. nil where the backend
	// keeps none; a backend keeps a bounded number, so a kept state may still be parsed again.
	Keep func()
}

// StackState is the stack's state the records hold, parsed.
func (r Records) StackState() (State, error) {
	if r.Deployment != nil {
		return State{Raw: r.State, Deployment: *r.Deployment}, nil
	}
	return StateOf(r.State)
}

// ErrRecordsUnread: the backend's storage cannot be read directly (a backend kind or an encoding
// clusterplane does not read); the records are read through the Pulumi CLI instead.
var ErrRecordsUnread = errors.New("the backend's records cannot be read directly")

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
