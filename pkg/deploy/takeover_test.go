package deploy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// cancelledBackend's stacks say they are locked until cancelled, as a file backend's stack is
// after its engine was killed.
type cancelledBackend struct {
	*deploytest.Backend
	cancels *int
}

var _ stackstate.Backend = cancelledBackend{}

type cancellableStack struct {
	stackstate.Stack
	cancels *int
}

func (s cancellableStack) Locked(context.Context) (bool, bool, error) {
	return *s.cancels == 0, true, nil
}
func (s cancellableStack) Cancel(context.Context) error { *s.cancels++; return nil }

func (b cancelledBackend) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Open(ctx, project, stack, program)
	if err != nil {
		return nil, err
	}
	return cancellableStack{s, b.cancels}, nil
}

// Promise: api-rescue-refuses-several-of-the-name
func TestTakingOverAStackWhoseUpDiedRemovesItsLockAndSettlesItsPendingCreate(t *testing.T) {
	tests := []struct {
		name string
		live []kinds.Live
		// settled: the take-over records or forgets the pending create; else it refuses.
		settled bool
	}{
		{"the cloud holds the resource: it is recorded, not created again", []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-9"}}, true},
		{"the cloud holds none: the create is forgotten", nil, true},
		{"the cloud holds two: nothing is guessed", []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-8"}, {Type: "cluster", Name: "dev-fra1", ID: "id-9"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.Pend(c.Key(), clusterType, "dev-fra1")
			c.Lookup = (&cloud{live: tt.live}).lookup("")
			cancels := 0
			d.Backend = cancelledBackend{b, &cancels}
			if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status == outcome.Done {
				t.Fatalf("up with a pending create and a lock went on: %s", o.Reason)
			}
			o := d.TakeOver(ctx, c)
			if cancels != 1 {
				t.Errorf("the engine's lock was cancelled %d times, want once", cancels)
			}
			var pending *stackstate.PendingCreatesError
			if !tt.settled {
				if o.Status == outcome.Done || !errors.As(o.Err, &pending) {
					t.Errorf("take-over with two candidates: %s %v, want the pending creates' refusal", o.Status, o.Err)
				}
				return
			}
			if o.Status != outcome.Done {
				t.Fatalf("take-over: %s %v", o.Status, o.Err)
			}
			if up := d.Up(ctx, c, deploy.UpOptions{Yes: true}); up.Status != outcome.Done {
				t.Errorf("up after the take-over: %s %v", up.Status, up.Err)
			}
		})
	}
}
