package deploy_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// engineCalls are the fake backend's calls that change a stack or run its program, without the
// stack's key: what tells one operation from another.
func engineCalls(calls []string) []string {
	var out []string
	for _, c := range calls {
		op, _, _ := strings.Cut(c, " ")
		if slices.Contains([]string{"preview", "update", "refresh", "destroy", "import", "remove"}, op) {
			out = append(out, op)
		}
	}
	return out
}

// A run's checks, order and words follow the name of its operation, and what each stack gets is
// the Deployer's call of that same operation: the one value a request carries holds both.
func TestEachStepRunsTheCallOfTheOperationItNames(t *testing.T) {
	tests := []struct {
		name     string
		step     pipeline.Step
		want     operation.Name
		deployed bool
		calls    []string
		// reason begins the stack's outcome, in the words of the operation that ran.
		reason string
	}{
		{"a preview previews", pipeline.Preview(deploy.PreviewOptions{}), operation.Preview, true, []string{"preview"}, "3 same"},
		{"a preview for a saved plan previews", pipeline.PreviewPlan(), operation.Preview, true, []string{"preview"}, "3 same"},
		{"an up updates the stack", pipeline.Up(deploy.UpOptions{Yes: true}), operation.Up, false, []string{"update"}, "3 create"},
		{"an up of a plan's stacks updates the stack", pipeline.UpPlan(func(string) *outcome.PlannedStack { return nil }, deploy.UpOptions{Yes: true}),
			operation.Up, false, []string{"update"}, "3 create"},
		{"a refresh refreshes", pipeline.Refresh(deploy.RefreshOptions{}), operation.Refresh, true, []string{"refresh"}, "refreshed"},
		{"a drift check previews with a refresh and changes nothing", pipeline.Drift(false), operation.Drift, true, []string{"preview"}, "no drift"},
		{"a status reads the records only", pipeline.Status(false), operation.Status, true, nil, "status"},
		{"a destroy destroys", pipeline.Destroy(deploy.DestroyOptions{}), operation.Destroy, true, []string{"destroy"}, "destroyed"},
		{"a kubeconfig reads the outputs only", pipeline.Kubeconfig(), operation.Kubeconfig, true, nil, "kubeconfig"},
		{"an adopt imports", pipeline.Adopt(func(string) string { return "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e" }, deploy.AdoptOptions{}),
			operation.Adopt, false, []string{"preview", "update"}, "adopted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.step.Operation(); got != tt.want {
				t.Fatalf("Operation() = %s, want %s", got, tt.want)
			}
			dir := writeFiles(t, map[string]string{"a.yaml": clusterText("a", "dev")})
			b := deploytest.New()
			request := pipeline.Request{Paths: []string{dir}, Files: reading(t, "", false), Deep: true,
				Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 1, StackTimeout: time.Minute}
			if tt.deployed {
				request.Op = pipeline.Up(deploy.UpOptions{Yes: true})
				if outs, err := pipeline.Run(context.Background(), request); err != nil || outs[0].Status != outcome.Done {
					t.Fatalf("the first up: %v %v", outs, err)
				}
			}
			before := len(b.Calls())
			request.Op = tt.step
			outs, err := pipeline.Run(context.Background(), request)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != 1 {
				t.Fatalf("%d outcomes, want 1", len(outs))
			}
			if got := outs[0]; got.Status != outcome.Done || !strings.HasPrefix(got.Reason, tt.reason) {
				t.Errorf("the %s step ended %s %q (%v), want done with a reason beginning %q", tt.want, got.Status, got.Reason, got.Err, tt.reason)
			}
			if got := engineCalls(b.Calls()[before:]); !slices.Equal(got, tt.calls) {
				t.Errorf("the %s step made the engine calls %v, want %v", tt.want, got, tt.calls)
			}
		})
	}
}
