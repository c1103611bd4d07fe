package deploy

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// lockStack takes t's stack lock when the backend can hold one. held tells whether it does: a
// rotation, whose steps span several engine runs, starts only under it.
func (d *Deployer) lockStack(ctx context.Context, t deploytarget.Target) (unlock func(), held bool, err error) {
	unlock, err = d.Backend.LockStack(ctx, t.Project, t.Stack)
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
