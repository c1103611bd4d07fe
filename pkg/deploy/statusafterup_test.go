package deploy_test

import (
	"context"
	"slices"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// Status right after an up that read the cloud in its own engine run (serve's worker asks so)
// compares the state that up wrote with the manifest and asks the cloud nothing more: a console
// edit made after the up is not seen by it (the next drift check reads the cloud), while a state
// that differs from the manifest still reads Drifted. After an up that trusted the state
// (--refresh=false), or with no up given, status --drift reads the cloud and finds the edit.
func TestStatusAfterAnUpThatReadTheCloudComparesTheStateThatUpWroteWithoutReadingAgain(t *testing.T) {
	tests := []struct {
		name string
		// up is the up run on the deployed stack; nil gives status no up.
		up *deploy.UpOptions
		// edit changes the stack after the up: in the cloud only, or in the state too.
		edit    func(b *deploytest.Backend, c deploytarget.Target)
		drifted string
	}{
		{"an up that read the cloud, the cloud edited after it", &deploy.UpOptions{Yes: true}, editCloud, "False"},
		{"an up that read the cloud, its state unlike the manifest", &deploy.UpOptions{Yes: true}, editState, "True"},
		{"an up that trusted the state, the cloud edited after it", &deploy.UpOptions{Yes: true, NoRefresh: true}, editCloud, "True"},
		{"no up given, the cloud edited", nil, editCloud, "True"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			opts := statusAfterUp(ctx, t, d, c, tt.up)
			tt.edit(b, c)
			o := d.Status(ctx, c, opts)
			if o.Report == nil {
				t.Fatalf("status: %s %v", o.Status, o.Err)
			}
			if got := o.Report.Condition("Drifted"); got.Status != tt.drifted {
				t.Errorf("Drifted %s (%s: %s), want %s", got.Status, got.Reason, got.Message, tt.drifted)
			}
		})
	}
}

// statusAfterUp deploys c, runs the up of opts on it when opts is given, and returns the options
// of a status --drift that follows that up (AfterUp), or of one given no up.
func statusAfterUp(ctx context.Context, t *testing.T, d *deploy.Deployer, c deploytarget.Target, opts *deploy.UpOptions) deploy.StatusOptions {
	t.Helper()
	mustUp(ctx, t, d, c)
	status := deploy.StatusOptions{Drift: true}
	if opts != nil {
		up := d.Up(ctx, c, *opts)
		if up.Status != outcome.Done {
			t.Fatalf("up: %s %v", up.Status, up.Err)
		}
		status.AfterUp = &up
	}
	return status
}

// editCloud adds a tag to the cluster in the cloud, which only a read of the cloud finds.
func editCloud(b *deploytest.Backend, c deploytarget.Target) {
	b.EditCloud(c.Key(), clusterType, "dev-fra1", "tags", []any{"hand-edited"})
}

// editState records a tag in the stack's state that the manifest does not set, as a provider
// that answered an update with another value than it was sent would.
func editState(b *deploytest.Backend, c deploytarget.Target) {
	b.Edit(c.Key(), clusterType, "dev-fra1", "tags", []any{"hand-edited"})
}

// The status right after an up that read the cloud runs the kind's program with the state that
// up wrote on its context (upread), so that the program takes the cluster's version from there
// rather than list the account's clusters again; every other status runs it with nothing on it.
// (What the state's outputs hold is stackstate's test: the fake backend records inputs only.)
func TestStatusAfterAnUpThatReadTheCloudHandsItsProgramTheStateThatUpWrote(t *testing.T) {
	tests := []struct {
		name string
		up   *deploy.UpOptions
		// want tells that the program's context carries the state's cluster.
		want bool
	}{
		{"an up that read the cloud", &deploy.UpOptions{Yes: true}, true},
		{"an up that trusted the state", &deploy.UpOptions{Yes: true, NoRefresh: true}, false},
		{"no up given", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, _ := deployer()
			c := cluster(t)
			opts := statusAfterUp(ctx, t, d, c, tt.up)
			var carried upread.Read
			runs := 0
			resources := c.Resources
			c.Resources = func(pctx *pulumi.Context, in proto.Message) error {
				runs++
				carried = upread.Of(pctx.Context())
				return resources(pctx, in)
			}
			o := d.Status(ctx, c, opts)
			if o.Report == nil {
				t.Fatalf("status: %s %v", o.Status, o.Err)
			}
			if runs == 0 {
				t.Fatal("status ran no program")
			}
			got := slices.ContainsFunc(carried, func(r upread.Resource) bool { return r.Type == clusterType })
			if got != tt.want {
				t.Errorf("the program carried %v: the cluster there = %t, want %t", carried, got, tt.want)
			}
		})
	}
}
