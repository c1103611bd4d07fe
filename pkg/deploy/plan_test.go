package deploy_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
)

// savePlan previews targets as `preview --save-plan` does and reads the plan's file back.
func savePlan(t *testing.T, d *deploy.Deployer, targets ...deploytarget.Target) *savedplan.Plan {
	t.Helper()
	var outcomes []outcome.Outcome
	for _, tg := range targets {
		outcomes = append(outcomes, d.PreviewPlan(context.Background(), tg))
	}
	p, err := savedplan.NewPlan(outcomes, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := savedplan.ReadPlan("plan.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestASavedPlanReadsBackAsItWasWrittenWithTheStepsAndTheLastUpdate(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	scaled := cluster(t, "nodeCount: 2", "nodeCount: 3")
	o := d.PreviewPlan(ctx, scaled)
	if o.Planned == nil {
		t.Fatalf("preview: %s %v, no plan", o.Status, o.Err)
	}
	p := savePlan(t, d, scaled)
	if len(p.Stacks) != 1 || !reflect.DeepEqual(p.Stacks[0], *o.Planned) {
		t.Fatalf("read back %+v, want %+v", p.Stacks, *o.Planned)
	}
	s := p.Stacks[0]
	if s.Stack != c.Key() || s.File != "cluster.yaml" || s.Digest != savedplan.ManifestDigest(scaled.Input) ||
		s.LastUpdate == nil || s.LastUpdate.Version != 1 || s.LastUpdate.Operation != "update" {
		t.Errorf("stack %+v, want its key, file, digest and last update version 1", s)
	}
	if len(s.Steps) != 1 || s.Steps[0].Op != "update" || !reflect.DeepEqual(s.Steps[0].Fields, []string{"nodePool.nodeCount"}) {
		t.Errorf("steps %+v, want the cluster's nodePool.nodeCount updated", s.Steps)
	}
	if !reflect.DeepEqual(p.Files(), []string{"cluster.yaml"}) {
		t.Errorf("files %v", p.Files())
	}
}

// Promise: saved-plan-holds-no-value
func TestASavedPlanHoldsNoTokenAndNoValueOnlyTheFieldsThatChange(t *testing.T) {
	ctx := context.Background()
	const token = "dop_v1_plan-test-token-never-saved"
	const tag = "a-value-never-saved"
	text := "target:\n" + indent(mustText(t, cluster(t))) + "providerConfig:\n  apiToken: " + token + "\n"
	d, _ := deployer()
	// A create, whose steps carry every input, the provider's token among them.
	created := target(t, "cluster.yaml", text)
	created.Lookup = nil // the token is not DigitalOcean's: nothing is looked up in its cloud
	plans := []*savedplan.Plan{savePlan(t, d, created)}
	if len(plans[0].Stacks[0].Steps) == 0 {
		t.Fatal("the plan of a create has no steps")
	}
	mustUp(ctx, t, d, created)
	tagged := target(t, "cluster.yaml", strings.Replace(text, "\n  spec:\n", "\n  spec:\n    tags: ["+tag+"]\n", 1))
	tagged.Lookup = nil
	for _, p := range append(plans, savePlan(t, d, tagged)) {
		data, _ := p.Marshal()
		for _, secret := range []string{token, tag} {
			if strings.Contains(string(data), secret) {
				t.Errorf("the plan holds %q:\n%s", secret, data)
			}
		}
	}
	data, _ := savePlan(t, d, tagged).Marshal()
	if !strings.Contains(string(data), `"tags"`) {
		t.Errorf("the plan does not name the field that changes:\n%s", data)
	}
}

// indent indents text by two spaces, as a stack input's target.
func indent(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if line != "" && line != "\n" {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// Promise: up-plan-applies-whole-or-nothing
func TestASavedPlanIsRefusedNamingWhatMovedAndHoldsOnAnUnchangedWorld(t *testing.T) {
	tests := []struct {
		name string
		// between is what happens between the review and the apply; it returns the target applied.
		between func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target
		moved   string // "" when the plan holds
	}{
		{"nothing", func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target {
			return cluster(t, "nodeCount: 2", "nodeCount: 3")
		}, ""},
		{"a manifest edit", func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target {
			return cluster(t, "nodeCount: 2", "nodeCount: 4")
		}, "cluster.yaml is not the manifest reviewed: spec.defaultNodePool.nodeCount edited since"},
		{"another operator's up", func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target {
			b.UpdateByAnotherOperator("digitaloceankubernetescluster/dev-fra1")
			return cluster(t, "nodeCount: 2", "nodeCount: 3")
		}, "another update landed on the stack since the plan: its last is version 2 (update succeeded later), the plan saw version 1"},
		{"an up after the plan, as this plan's own apply is", func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target {
			b.UpdateByAnotherOperator("digitaloceankubernetescluster/dev-fra1")
			return cluster(t, "nodeCount: 2", "nodeCount: 3")
		}, "(an up --plan of this very plan counts: a plan is applied once; preview --save-plan again)"},
		{"a change in the cloud", func(t *testing.T, b *deploytest.Backend, d *deploy.Deployer) deploytarget.Target {
			b.Edit("digitaloceankubernetescluster/dev-fra1", clusterType, "dev-fra1", "tags", []any{"edited-in-the-console"})
			return cluster(t, "nodeCount: 2", "nodeCount: 3")
		}, "a fresh preview's update of " + clusterType + " dev-fra1 also changes tags (the cloud or the stack changed since the review)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			mustUp(ctx, t, d, cluster(t))
			p := savePlan(t, d, cluster(t, "nodeCount: 2", "nodeCount: 3"))
			applied := tt.between(t, b, d)
			err := d.CheckPlan(ctx, applied, p.Stacks[0], replace.Allowed{})
			var moved *savedplan.PlanMovedError
			switch {
			case tt.moved == "" && err != nil:
				t.Fatalf("the plan is refused on an unchanged world: %v", err)
			case tt.moved == "":
				o := d.Up(ctx, applied, deploy.UpOptions{Yes: true, Planned: &p.Stacks[0]})
				if o.Status != outcome.Done || o.Reason != "1 update, 2 same" {
					t.Errorf("up --plan: %s %q %v", o.Status, o.Reason, o.Err)
				}
			case !errors.As(err, &moved) || moved.Stack != "digitaloceankubernetescluster/dev-fra1" || !strings.Contains(err.Error(), tt.moved):
				t.Errorf("refused with %v, want it to name the stack and %q", err, tt.moved)
			case strings.Contains(err.Error(), "would no longer do") || strings.Contains(err.Error(), "digest"):
				// One change is one sentence: never the step twice as if it contradicted itself,
				// never a digest where a field can be named.
				t.Errorf("refused with %v, want what moved said once, by field", err)
			}
		})
	}
}

func TestUpWithAPlanRefusesWhenAnUpdateLandsAfterTheCheck(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	scaled := cluster(t, "nodeCount: 2", "nodeCount: 3")
	p := savePlan(t, d, scaled)
	if err := d.CheckPlan(ctx, scaled, p.Stacks[0], replace.Allowed{}); err != nil {
		t.Fatal(err)
	}
	updates := calls(b, "update")
	b.UpdateByAnotherOperator(scaled.Key())
	o := d.Up(ctx, scaled, deploy.UpOptions{Yes: true, Planned: &p.Stacks[0]})
	var moved *savedplan.PlanMovedError
	if o.Status != outcome.Blocked || !errors.As(o.Err, &moved) {
		t.Fatalf("up: %s %v, want refused as the plan moved", o.Status, o.Err)
	}
	if calls(b, "update") != updates {
		t.Errorf("the engine ran: %v", b.Calls())
	}
}

func TestASavedPlanThatReplacesIsAppliedOnlyWhenTheRunNamesTheReplacement(t *testing.T) {
	tests := []struct {
		name  string
		allow replace.Allowed
		want  outcome.Status
	}{
		{"without the flag the reviewed replacement is refused", replace.Allowed{}, outcome.Blocked},
		{"with the flag the reviewed replacement is applied", replace.Everything(), outcome.Done},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			b.Replaces("region")
			mustUp(ctx, t, d, cluster(t))
			moved := cluster(t, "region: fra1", "region: ams3")
			p := savePlan(t, d, moved)
			err := d.CheckPlan(ctx, moved, p.Stacks[0], tt.allow)
			var unasked *replace.UnaskedError
			if (tt.want == outcome.Blocked) != errors.As(err, &unasked) {
				t.Fatalf("the plan's check: %v, want a refused replacement: %t", err, tt.want == outcome.Blocked)
			}
			updates := calls(b, "update")
			o := d.Up(ctx, moved, deploy.UpOptions{Yes: true, AllowReplace: tt.allow, Planned: &p.Stacks[0]})
			if o.Status != tt.want {
				t.Errorf("up --plan: %s %v, want %s", o.Status, o.Err, tt.want)
			}
			if deployed := calls(b, "update") > updates; deployed != (tt.want == outcome.Done) {
				t.Errorf("the engine's up ran: %t: %v", deployed, b.Calls())
			}
		})
	}
}

func TestAPlanFileOfAnotherFormatOrWithAStackTwiceIsRefused(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not JSON", "stacks: []", "read the plan plan.json"},
		{"another format", `{"format": "clusterplane.dev/plan/v0", "stacks": []}`, "is not a clusterplane plan of format"},
		{"an unknown field", `{"format": "clusterplane.dev/plan/v1", "token": "x"}`, "unknown field"},
		{"a stack twice", `{"format": "clusterplane.dev/plan/v1", "stacks": [{"stack": "a/b", "manifestDigest": "sha256:1"},
			{"stack": "a/b", "manifestDigest": "sha256:1"}]}`, "stack a/b is planned twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := savedplan.ReadPlan("plan.json", []byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("read: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNoPlanIsMadeWhenAStacksPreviewFailed(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	b.Fail(c.Key(), "preview", errors.New("the backend is out of reach"))
	if _, err := savedplan.NewPlan([]outcome.Outcome{d.PreviewPlan(ctx, c)}, time.Now()); err == nil ||
		!strings.Contains(err.Error(), c.Key()) {
		t.Errorf("plan: %v, want none, naming %s", err, c.Key())
	}
}
