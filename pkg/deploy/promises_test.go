package deploy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/retry"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A backend that cannot hold a stack's lock across operations (an object store) deploys as
// before, but a rotation, whose steps span several engine runs, is refused there before anything
// is rotated (exit 3).
// Promise: rotation-refused-without-stack-lock
func TestARotationIsRefusedOnABackendThatCannotHoldTheStacksLock(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	b.NoStackLock()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	resized.Rotate = rotatingIn(&pools{}) // its Create fails: a rotation that started would fail, not be refused
	updates := calls(b, "update")
	o := d.Up(ctx, resized, deploy.UpOptions{Yes: true})
	if o.Status != outcome.Blocked || o.Err == nil || !strings.Contains(o.Err.Error(), "cannot hold the stack's lock") ||
		!strings.Contains(o.Err.Error(), "nothing was rotated") {
		t.Errorf("up of a rotation without a stack lock: %s %v, want blocked saying nothing was rotated", o.Status, o.Err)
	}
	if calls(b, "update") != updates {
		t.Errorf("the engine updated the stack: %v", b.Calls())
	}
}

// The cloud turned an operation away for now (a 429 or a 5xx): it runs again up to four more
// times, the waits adding up to 30 seconds, as the DigitalOcean plugin's own client did.
// Promise: retries-four-more-within-thirty-seconds
func TestAnOperationTurnedAwayRunsAgainAtMostFourMoreTimesWithinThirtySeconds(t *testing.T) {
	var total time.Duration
	for _, w := range retry.DefaultWaits {
		total += w
	}
	if len(retry.DefaultWaits) != 4 || total > 30*time.Second {
		t.Errorf("retry.DefaultWaits = %v (%s in all), want four more attempts within 30s", retry.DefaultWaits, total)
	}
}

// refreshSpy is the fake backend whose stacks record, for each up, whether it read the cloud first.
type refreshSpy struct {
	*deploytest.Backend
	ups *[]bool
}

var _ stackstate.Backend = refreshSpy{}

func (b refreshSpy) Open(ctx context.Context, project, name string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Open(ctx, project, name, program)
	if err != nil {
		return nil, err
	}
	return spiedStack{s, b.ups}, nil
}

func (b refreshSpy) Create(ctx context.Context, project, name string, program pulumi.RunFunc) (stackstate.Stack, error) {
	s, err := b.Backend.Create(ctx, project, name, program)
	if err != nil {
		return nil, err
	}
	return spiedStack{s, b.ups}, nil
}

type spiedStack struct {
	stackstate.Stack
	ups *[]bool
}

func (s spiedStack) Up(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	*s.ups = append(*s.ups, o.Refresh)
	return s.Stack.Up(ctx, o)
}

// --refresh=false trusts the state of a manifest unchanged since its last up. A manifest the
// stack has not deployed yet is read first all the same, so that a failed update a bridged
// provider recorded as done is never taken for done.
// Promise: up-refresh-false-reads-an-undeployed-manifest-first
func TestUpWithoutRefreshTrustsTheStateOnlyOfAManifestItDeployed(t *testing.T) {
	tests := []struct {
		name      string
		nodes     string // the manifest's node count at the second up; 2 is the deployed one
		noRefresh bool
		reads     bool
	}{
		{"up reads the cloud first", "2", false, true},
		{"--refresh=false trusts the state of the manifest it deployed", "2", true, false},
		{"--refresh=false reads first a manifest not deployed yet", "3", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			var ups []bool
			d := &deploy.Deployer{Backend: refreshSpy{deploytest.New(), &ups}}
			text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
			mustUp(ctx, t, d, target(t, "pool.yaml", text))
			p := target(t, "pool.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: "+tt.nodes, 1))
			ups = nil
			if o := d.Up(ctx, p, deploy.UpOptions{Yes: true, NoRefresh: tt.noRefresh}); o.Status != outcome.Done {
				t.Fatalf("up: %s %v", o.Status, o.Err)
			}
			if len(ups) != 1 || ups[0] != tt.reads {
				t.Errorf("the up's engine runs read the cloud first: %v, want [%t]", ups, tt.reads)
			}
		})
	}
}
