package deploy

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// records reads the target's state and last update: from the backend's storage where it can be
// read so (Backend.ReadsRecords), unless open asks for the stack itself; else through the opened
// stack, which is returned too for the caller to use and close (nil when none was opened), with
// the target its program deploys (openAsDeployed), for status --drift to preview as drift does.
func (d *Deployer) records(ctx context.Context, t deploytarget.Target, open bool) (stackstate.State, *stackstate.Update, stackstate.Stack, *deploytarget.Target, error) {
	if d.Backend.ReadsRecords() && !open {
		rec, err := d.Backend.Records(ctx, t.Project, t.Stack)
		switch {
		case err == nil:
			st, err := rec.StackState()
			return st, rec.Last, nil, nil, err
		case !errors.Is(err, stackstate.ErrRecordsUnread):
			return stackstate.State{}, nil, nil, nil, err
		}
		d.sayOnce("status reads this backend's records through the Pulumi CLI, one stack at a time: " + err.Error())
	}
	s, asDeployed, err := d.stacks().openAsDeployed(ctx, t)
	if err != nil {
		return stackstate.State{}, nil, nil, nil, err
	}
	last, err := s.LastUpdate(ctx)
	if err != nil {
		_ = s.Close()
		return stackstate.State{}, nil, nil, nil, errors.Wrap(err, "read the stack's history")
	}
	st, err := s.State(ctx)
	if err != nil {
		_ = s.Close()
		return stackstate.State{}, nil, nil, nil, err
	}
	return st, last, s, asDeployed, nil
}
