package deploy

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
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
	Last *stackstate.Update
	// Newest is the kind of the newest record of the stack's history, whatever it is ("refresh"
	// after a refresh, which rewrites the state from the cloud); "" when it has none.
	Newest string
	// WrittenSinceRecord tells that the state was written after the newest record of the
	// history (a `pulumi stack import`, a state edit), so no record says what wrote it.
	WrittenSinceRecord bool
}

// StackState is the stack's state the records hold, parsed.
func (r Records) StackState() (stackstate.State, error) {
	if r.Deployment != nil {
		return stackstate.State{Raw: r.State, Deployment: *r.Deployment}, nil
	}
	return stackstate.StateOf(r.State)
}

// RecordReader is a Backend that reads a stack's records from the backend's storage itself,
// starting no Pulumi CLI: status of a fleet then costs a file or a row read per stack, not two
// engine processes.
type RecordReader interface {
	// Records reads stack <project>/<stack>'s records: ErrNotDeployed when the stack does not
	// exist, ErrRecordsUnread (wrapped, with why) when this backend's storage cannot be read so.
	Records(ctx context.Context, project, stack string) (Records, error)
	// LastUpdate reads stack <project>/<stack>'s last update or destroy from its history alone,
	// nil when it has none; the errors are Records'. What an adoption left is in that update's
	// message, and the state, most of what Records reads on a large stack, has no part in it.
	LastUpdate(ctx context.Context, project, stack string) (*stackstate.Update, error)
}

// ErrRecordsUnread: the backend's storage cannot be read directly (a backend kind or an encoding
// clusterplane does not read); the records are read through the Pulumi CLI instead.
var ErrRecordsUnread = errors.New("the backend's records cannot be read directly")

// records reads the target's state and last update: from the backend's storage where it can be
// read so (RecordReader), unless open asks for the stack itself; else through the opened stack,
// which is returned too for the caller to use and close (nil when none was opened), with the
// target its program deploys (openAsDeployed), for status --drift to preview as drift does.
func (d *Deployer) records(ctx context.Context, t deploytarget.Target, open bool) (stackstate.State, *stackstate.Update, stackstate.Stack, *deploytarget.Target, error) {
	if rr, ok := d.Backend.(RecordReader); ok && !open {
		rec, err := rr.Records(ctx, t.Project, t.Stack)
		switch {
		case err == nil:
			st, err := rec.StackState()
			return st, rec.Last, nil, nil, err
		case !errors.Is(err, ErrRecordsUnread):
			return stackstate.State{}, nil, nil, nil, err
		}
		d.sayOnce("status reads this backend's records through the Pulumi CLI, one stack at a time: " + err.Error())
	}
	s, asDeployed, err := d.openAsDeployed(ctx, t)
	if err != nil {
		return stackstate.State{}, nil, nil, nil, err
	}
	last, err := s.LastUpdate(ctx)
	if err != nil {
		_ = s.Close()
		return stackstate.State{}, nil, nil, nil, errors.Wrap(err, "read the stack's history")
	}
	st, err := stackstate.ReadState(ctx, s)
	if err != nil {
		_ = s.Close()
		return stackstate.State{}, nil, nil, nil, err
	}
	return st, last, s, asDeployed, nil
}
