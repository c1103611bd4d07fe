package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A killed up leaves its Pulumi lock behind. The next up, refresh or destroy removes it when the
// process that took it was of this machine and no longer runs, and clusterplane's own lock of the
// stack is held (so no other clusterplane operation runs on it): it says so, and goes on. A
// backend that cannot hold clusterplane's own lock keeps the lock, and the refusal names the
// command that removes it.
//
// Promise: dead-lock-removed-by-the-next-run
func TestTheLockAKilledProcessLeftIsRemovedByTheNextRunThatHoldsTheStack(t *testing.T) {
	const holder = "process 4242 of build-7"
	tests := []struct {
		name string
		// noStackLock: the backend cannot hold clusterplane's own lock of a stack.
		noStackLock bool
		run         func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome
		want        outcome.Status
	}{
		{name: "an up removes it and deploys", run: func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, c, deploy.UpOptions{Yes: true})
		}, want: outcome.Done},
		{name: "a refresh removes it and refreshes", run: func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Refresh(ctx, c, deploy.RefreshOptions{})
		}, want: outcome.Done},
		{name: "a destroy removes it and destroys", run: func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Destroy(ctx, c, deploy.DestroyOptions{})
		}, want: outcome.Done},
		{name: "without clusterplane's own lock it stays, and the up fails naming the cancel", noStackLock: true,
			run: func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
				return d.Up(ctx, c, deploy.UpOptions{Yes: true})
			}, want: outcome.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			var said []string
			d.Say = func(line string) { said = append(said, line) }
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.LeaveDeadLock(c.Key(), holder)
			if tt.noStackLock {
				b.NoStackLock()
			}
			o := tt.run(ctx, d, c)
			if o.Status != tt.want {
				t.Fatalf("%s %v, want %s", o.Status, o.Err, tt.want)
			}
			removed := calls(b, "unlock") == 1
			if removed == tt.noStackLock {
				t.Errorf("the lock removed: %v, want %v (calls %v)", removed, !tt.noStackLock, b.Calls())
			}
			line := "cluster.yaml: removed the Pulumi lock that " + holder + ", no longer running, left on stack " + c.Key()
			if says := strings.Contains(strings.Join(said, "\n"), line); says != removed {
				t.Errorf("said %q; want %q said: %v", said, line, removed)
			}
			var locked *stackstate.LockedError
			if tt.noStackLock && (!errors.As(o.Err, &locked) || !strings.Contains(o.Err.Error(), "pulumi cancel --stack")) {
				t.Errorf("the refusal %v does not name the command that removes the lock", o.Err)
			}
		})
	}
}
