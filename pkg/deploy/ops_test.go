package deploy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// deployer is a Deployer over a fake backend.
func deployer() (*deploy.Deployer, *deploytest.Backend) {
	b := deploytest.New()
	return &deploy.Deployer{Backend: b}, b
}

// mustUp deploys target with --yes and ends the test when it is not done.
func mustUp(ctx context.Context, t *testing.T, d *deploy.Deployer, target deploytarget.Target) {
	t.Helper()
	if o := d.Up(ctx, target, deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
		t.Fatalf("up of %s: %s %v", target.Key(), o.Status, o.Err)
	}
}

// calls counts the engine calls of op made so far.
func calls(b *deploytest.Backend, op string) int {
	n := 0
	for _, c := range b.Calls() {
		if strings.HasPrefix(c, op+" ") {
			n++
		}
	}
	return n
}

func TestUpDeploysThenUpdatesInPlaceAndSaysItsOwnChangesNotTheStacksLatestHistory(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	first := d.Up(ctx, cluster(t), deploy.UpOptions{Yes: true})
	if first.Status != outcome.Done || first.Result.Changes["create"] != 3 {
		t.Fatalf("the first up: %s %q %v", first.Status, first.Reason, first.Err)
	}
	// Another operator's update lands on the stack: the next up still reports only its own steps.
	b.UpdateByAnotherOperator("digitaloceankubernetescluster/dev-fra1")
	scaled := d.Up(ctx, cluster(t, "nodeCount: 2", "nodeCount: 3"), deploy.UpOptions{Yes: true})
	if scaled.Status != outcome.Done || scaled.Reason != "1 update, 2 same" {
		t.Errorf("the scaling up: %s %q, want done with its own 1 update, 2 same", scaled.Status, scaled.Reason)
	}
	if len(scaled.Result.Steps) != 1 || !slices.Contains(scaled.Result.Steps[0].Paths, "nodePool.nodeCount") {
		t.Errorf("steps %+v, want the cluster's nodePool updated", scaled.Result.Steps)
	}
}

// Promise: up-refuses-refused-change
// Promise: up-diffs-recorded-manifest
// Promise: architecture-up-refuses-before-the-engine
func TestUpRefusesAChangeTheProvidersCannotCarryOutBeforeTheEngineRuns(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	ha := cluster(t, "\nspec:\n", "\nspec:\n  highlyAvailable: true\n")
	mustUp(ctx, t, d, ha)
	updates := calls(b, "update")
	off := d.Up(ctx, cluster(t, "\nspec:\n", "\nspec:\n  highlyAvailable: false\n"), deploy.UpOptions{Yes: true})
	var refused *stackstate.RefusedError
	if off.Status != outcome.Blocked || !errors.As(off.Err, &refused) || len(refused.Changes) != 1 ||
		refused.Changes[0].Path != "spec.highlyAvailable" || !strings.Contains(refused.Changes[0].Reason, "refuses to turn high availability off") {
		t.Fatalf("turning HA off: %s %v, want refused naming spec.highlyAvailable and DigitalOcean's refusal", off.Status, off.Err)
	}
	if calls(b, "update") != updates || calls(b, "preview") != 0 {
		t.Errorf("the engine ran for a refused change: %v", b.Calls())
	}
	if o := d.Up(ctx, cluster(t, "\nspec:\n", "\nspec:\n  highlyAvailable: false\n"), deploy.UpOptions{Yes: true, AllowRefused: true}); o.Status != outcome.Done {
		t.Errorf("with AllowRefused the change goes to the engine: %s %v", o.Status, o.Err)
	}
}

// Promise: up-asks-on-terminal
// Promise: up-without-terminal-needs-yes
func TestUpWithoutYesAsksAboutAnyChangeOnATerminalAndDeploysNothingUnaskedWithoutOne(t *testing.T) {
	ctx := context.Background()
	same := func(t *testing.T) deploytarget.Target { return cluster(t) }
	scaled := func(t *testing.T) deploytarget.Target { return cluster(t, "nodeCount: 2", "nodeCount: 3") }
	moved := func(t *testing.T) deploytarget.Target { return cluster(t, "region: fra1", "region: ams3") }
	tests := []struct {
		name        string
		change      func(t *testing.T) deploytarget.Target
		interactive bool
		answer      bool
		asked       bool
		want        outcome.Status
	}{
		{"an in-place change on a terminal is asked about and deploys on yes", scaled, true, true, true, outcome.Done},
		{"an in-place change on a terminal is not deployed on no", scaled, true, false, true, outcome.Blocked},
		{"no change on a terminal is not asked about", same, true, false, false, outcome.Done},
		{"an in-place change without a terminal is not deployed", scaled, false, true, false, outcome.Blocked},
		{"no change without a terminal has nothing to ask and is done", same, false, false, false, outcome.Done},
		{"a replacement on a terminal is refused without asking: a yes does not stand for it", moved, true, true, false, outcome.Blocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			b.Replaces("region")
			mustUp(ctx, t, d, cluster(t))
			asked := false
			o := d.Up(ctx, tt.change(t), deploy.UpOptions{Interactive: tt.interactive, Confirm: func(deploytarget.Target, stackstate.Result) bool {
				asked = true
				return tt.answer
			}})
			if o.Status != tt.want || asked != tt.asked {
				t.Errorf("%s (%q), asked %t; want %s, asked %t", o.Status, o.Reason, asked, tt.want, tt.asked)
			}
			if deployed := calls(b, "update") == 2; deployed != (tt.want == outcome.Done) {
				t.Errorf("deployed %t, want %t: %v", deployed, tt.want == outcome.Done, b.Calls())
			}
		})
	}
}

// Promise: up-refuses-unasked-replacement
// Promise: up-replacement-refusal-names-the-way-out
// Promise: replacing-pool-change-refused-by-default
func TestUpReplacesOnlyWhatTheRunNamesWithYesATerminalsYesOrNeither(t *testing.T) {
	ctx := context.Background()
	moved := func(t *testing.T) deploytarget.Target { return cluster(t, "region: fra1", "region: ams3") }
	named := func(values ...string) replace.Allowed {
		a, err := replace.Parse(values, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name   string
		opts   deploy.UpOptions
		asked  bool
		wantUp outcome.Status
	}{
		{"yes alone does not replace", deploy.UpOptions{Yes: true}, false, outcome.Blocked},
		{"yes with the flag alone replaces", deploy.UpOptions{Yes: true, AllowReplace: named(replace.All)}, false, outcome.Done},
		{"yes naming the manifest's kind and name replaces", deploy.UpOptions{Yes: true,
			AllowReplace: named("DigitalOceanKubernetesCluster/dev-fra1")}, false, outcome.Done},
		{"yes naming the kind's program in another case replaces", deploy.UpOptions{Yes: true,
			AllowReplace: named("digitaloceankubernetescluster/DEV-FRA1")}, false, outcome.Done},
		{"yes naming another manifest does not replace", deploy.UpOptions{Yes: true,
			AllowReplace: named("DigitalOceanKubernetesCluster/prod")}, false, outcome.Blocked},
		{"a yes at a terminal does not replace and is not asked for", deploy.UpOptions{Interactive: true}, false, outcome.Blocked},
		{"a yes at a terminal with the flag replaces", deploy.UpOptions{Interactive: true, AllowReplace: named(replace.All)}, true, outcome.Done},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			b.Replaces("region")
			mustUp(ctx, t, d, cluster(t))
			updates := calls(b, "update")
			asked := false
			tt.opts.Confirm = func(deploytarget.Target, stackstate.Result) bool { asked = true; return true }
			o := d.Up(ctx, moved(t), tt.opts)
			if o.Status != tt.wantUp || asked != tt.asked {
				t.Fatalf("up = %s (%q, %v), asked %t; want %s, asked %t", o.Status, o.Reason, o.Err, asked, tt.wantUp, tt.asked)
			}
			if deployed := calls(b, "update") > updates; deployed != (tt.wantUp == outcome.Done) {
				t.Errorf("the engine's up ran: %t, want %t: %v", deployed, tt.wantUp == outcome.Done, b.Calls())
			}
			var unasked *replace.UnaskedError
			if tt.wantUp == outcome.Blocked {
				if !errors.As(o.Err, &unasked) || !strings.Contains(o.Err.Error(), "--allow-replace=DigitalOceanKubernetesCluster/dev-fra1") ||
					!strings.Contains(o.Err.Error(), "rollout") || !strings.Contains(o.Err.Error(), "spec.region") {
					t.Errorf("the refusal %v does not name spec.region, rollout and --allow-replace=DigitalOceanKubernetesCluster/dev", o.Err)
				}
			}
		})
	}
}

// A cluster under deletionProtection is never replaced, whatever --allow-replace names: the
// engine would refuse it, so up refuses it before the engine runs and names
// deletionProtection: false, deployed first, as the way out.
// Promise: up-protected-cluster-replacement-refused-whatever-the-flags
func TestUpRefusesToReplaceAProtectedClusterEvenWhenTheRunAllowsReplacing(t *testing.T) {
	ctx := context.Background()
	protect := func(t *testing.T, r ...string) deploytarget.Target {
		return cluster(t, append([]string{"deletionProtection: false", "deletionProtection: true"}, r...)...)
	}
	all, err := replace.Parse([]string{replace.All}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	named, err := replace.Parse([]string{"DigitalOceanKubernetesCluster/dev-fra1"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		allow replace.Allowed
	}{
		{"with every manifest allowed", all},
		{"with the cluster named", named},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			b.Replaces("region")
			mustUp(ctx, t, d, protect(t))
			updates := calls(b, "update")
			o := d.Up(ctx, protect(t, "region: fra1", "region: ams3"), deploy.UpOptions{Yes: true, AllowReplace: tt.allow})
			if o.Status != outcome.Blocked || o.Err == nil || !strings.Contains(o.Err.Error(), "deletionProtection: false first") ||
				!strings.Contains(o.Err.Error(), "spec.region") {
				t.Fatalf("up = %s (%v), want blocked naming spec.region and deletionProtection: false", o.Status, o.Err)
			}
			if calls(b, "update") != updates {
				t.Errorf("the engine's up ran: %v", b.Calls())
			}
		})
	}
}

func TestUpWithYesRunsNoExtraPreviewWhenNoFieldThatReplacesChanged(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	b.Replaces("region")
	mustUp(ctx, t, d, cluster(t))
	if o := d.Up(ctx, cluster(t, "nodeCount: 2", "nodeCount: 3"), deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
		t.Fatalf("an in-place change with yes: %s %v", o.Status, o.Err)
	}
	if n := calls(b, "preview"); n != 0 {
		t.Errorf("up --yes of an in-place change previewed %d times, want none: %v", n, b.Calls())
	}
}

// serve's worker answers yes but promises the engine's word on a replacement: with
// PreviewReplacements, up --yes of a stack that holds resources previews it first and refuses
// what the engine would replace, as a yes at a terminal does, even where the effects table calls
// the change in place or the stack recorded no manifest to compare with; nothing is asked, and
// a new stack, which holds nothing to replace, is not previewed. A plain yes takes the effects
// table's word where the stack recorded what it deployed, and asks the engine where it did not.
// Promise: up-refuses-unasked-replacement
func TestUpWithYesAndPreviewReplacementsRefusesWhatTheEnginePlansToReplace(t *testing.T) {
	ctx := context.Background()
	tagged := []string{"region: fra1", "region: fra1\n  tags: [team-a]"}
	asTerminal := deploy.UpOptions{Interactive: true}
	previewing := deploy.UpOptions{Yes: true, PreviewReplacements: true}
	yes := deploy.UpOptions{Yes: true}
	moved := []string{"region: fra1", "region: ams3"}
	tests := []struct {
		name   string
		change []string
		opts   deploy.UpOptions
		// unrecorded leaves the stack without the manifest it deployed, as an up that failed
		// before the engine recorded its outputs does.
		unrecorded bool
		want       outcome.Status
		previews   int
	}{
		{"a replacement the table calls in place is refused", tagged, previewing, false, outcome.Blocked, 1},
		{"a yes at a terminal refuses the same", tagged, asTerminal, false, outcome.Blocked, 1},
		{"a replacement on a stack that recorded no manifest is refused", moved, previewing, true, outcome.Blocked, 1},
		{"a yes at a terminal refuses the same there", moved, asTerminal, true, outcome.Blocked, 1},
		{"a plain yes refuses the same there too", moved, yes, true, outcome.Blocked, 1},
		{"a change in place deploys unasked", []string{"nodeCount: 2", "nodeCount: 3"}, previewing, false, outcome.Done, 1},
		{"a plain yes deploys a change the table calls in place with no preview", []string{"nodeCount: 2", "nodeCount: 3"}, yes, false, outcome.Done, 0},
		{"a plain yes previews a replacement the table names and refuses it", moved, yes, false, outcome.Blocked, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			b.Replaces("region")
			b.Replaces("tags")
			c := cluster(t)
			mustUp(ctx, t, d, c)
			if tt.unrecorded {
				b.SetOutput(c.Key(), deploytarget.ManifestOutput, "", false)
			}
			updates, previews := calls(b, "update"), calls(b, "preview")
			asked := false
			tt.opts.Confirm = func(deploytarget.Target, stackstate.Result) bool { asked = true; return true }
			o := d.Up(ctx, cluster(t, tt.change...), tt.opts)
			if o.Status != tt.want || asked {
				t.Fatalf("up = %s (%q, %v), asked %t; want %s, not asked", o.Status, o.Reason, o.Err, asked, tt.want)
			}
			if n := calls(b, "preview") - previews; n != tt.previews {
				t.Errorf("up of a stack that holds a cluster previewed %d times, want %d: %v", n, tt.previews, b.Calls())
			}
			if deployed := calls(b, "update") > updates; deployed != (tt.want == outcome.Done) {
				t.Errorf("the engine's up ran: %t, want %t: %v", deployed, tt.want == outcome.Done, b.Calls())
			}
			var unasked *replace.UnaskedError
			if tt.want == outcome.Blocked && !errors.As(o.Err, &unasked) {
				t.Errorf("the refusal %v is no unasked replacement", o.Err)
			}
		})
	}
	t.Run("a new stack is deployed with no preview", func(t *testing.T) {
		d, b := deployer()
		if o := d.Up(ctx, cluster(t), previewing); o.Status != outcome.Done {
			t.Fatalf("up of a new stack: %s %v", o.Status, o.Err)
		}
		if n := calls(b, "preview"); n != 0 {
			t.Errorf("up of a new stack previewed %d times, want none: %v", n, b.Calls())
		}
	})
}

// Promise: destroy-refuses-protected-cluster
// Promise: readme-destroy-refuses-protected-cluster
func TestAProtectedClusterIsNeitherReplacedNorDestroyedAndDestroyDoesNotAskTheEngine(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	b.Replaces("region")
	protected := target(t, "cluster.yaml", manifest(t, "digitaloceankubernetescluster/minimal.yaml"))
	mustUp(ctx, t, d, protected)
	var protectedErr *stackstate.ProtectedError
	moved := target(t, "cluster.yaml", strings.Replace(manifest(t, "digitaloceankubernetescluster/minimal.yaml"), "region: fra1", "region: ams3", 1))
	if o := d.Preview(ctx, moved, deploy.PreviewOptions{}); o.Status != outcome.Blocked {
		t.Errorf("preview of a protected replacement: %s %v, want blocked", o.Status, o.Err)
	}
	destroys := calls(b, "destroy")
	if o := d.Destroy(ctx, protected, deploy.DestroyOptions{}); o.Status != outcome.Blocked || !errors.As(o.Err, &protectedErr) ||
		!strings.Contains(protectedErr.Error(), clusterType+" dev-fra1") {
		t.Errorf("destroy of a protected cluster: %s %v, want blocked naming the cluster", o.Status, o.Err)
	}
	if calls(b, "destroy") != destroys {
		t.Errorf("the engine ran a destroy of a protected cluster: %v", b.Calls())
	}
}

// Promise: pending-creates-refused-until-recorded
func TestPendingCreatesStopUpDestroyAndStatusUntilRefreshRecordsThemWithTheCloudsId(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	b.Pend(c.Key(), clusterType, "second")
	var pending *stackstate.PendingCreatesError
	// up is refused (exit 3); destroy fails, so that a fleet's destroy skips the stacks that wait
	// for this one rather than deleting them.
	for name, want := range map[string]struct {
		o      outcome.Outcome
		status outcome.Status
	}{
		"up":      {d.Up(ctx, c, deploy.UpOptions{Yes: true}), outcome.Blocked},
		"destroy": {d.Destroy(ctx, c, deploy.DestroyOptions{}), outcome.Failed},
	} {
		if o := want.o; o.Status != want.status || !errors.As(o.Err, &pending) || len(pending.Creates) != 1 {
			t.Errorf("%s with a pending create: %s %v, want %s naming it", name, o.Status, o.Err, want.status)
		}
	}
	advice := pending.Advice("cluster.yaml")
	for _, want := range []string{"pulumi cancel --stack organization/digitaloceankubernetescluster/dev-fra1 --yes",
		"clusterplane refresh cluster.yaml --import-pending-create CLOUD_ID", "--clear-pending-creates"} {
		if !strings.Contains(advice, want) {
			t.Errorf("the advice lacks %q: %s", want, advice)
		}
	}
	st := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
	if ready := st.Report.Condition("Ready"); ready.Reason != "PendingCreates" || ready.Message != advice {
		t.Errorf("status Ready = %+v, want PendingCreates with the advice", ready)
	}
	if o := d.Refresh(ctx, c, deploy.RefreshOptions{ImportPendingCreates: []string{"cloud-id-2"}}); o.Status != outcome.Done {
		t.Fatalf("refresh --import-pending-create: %s %v", o.Status, o.Err)
	}
	if got := b.Resources(c.Key()); !slices.Contains(got, clusterType+"::second") {
		t.Errorf("resources %v, want the pending create recorded", got)
	}
	if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
		t.Errorf("up after the refresh: %s %v", o.Status, o.Err)
	}
}

// Promise: up-diffs-recorded-manifest
func TestStatusSaysNotDeployedReadyAManifestChangedByFieldAndAReferenceGone(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := namedCluster(t, "platform", "prod", "")
	p := pool(t, "workers", "platform-prod")
	if got := d.Status(ctx, c, deploy.StatusOptions{Drift: true}).Report.Condition("Ready"); got.Reason != "NotDeployed" {
		t.Errorf("a stack never deployed: Ready %+v", got)
	}
	for _, tg := range []deploytarget.Target{c, p} {
		mustUp(ctx, t, d, tg)
	}
	st := d.Status(ctx, c, deploy.StatusOptions{Drift: true}).Report
	if ready, drifted := st.Condition("Ready"), st.Condition("Drifted"); ready.Status != "True" || drifted.Reason != "InSync" ||
		st.Generation != st.ObservedGeneration || st.Outputs["cluster_id"] == nil || st.Outputs["kubeconfig"] != nil {
		t.Errorf("status after up: %+v", st)
	}
	changed := namedCluster(t, "platform", "prod", "")
	changed = target(t, "platform.yaml", strings.Replace(strings.Replace(mustText(t, changed), "nodeCount: 2", "nodeCount: 5", 1),
		"clusterName: platform", "clusterName: renamed", 1))
	if ready := d.Status(ctx, changed, deploy.StatusOptions{}).Report.Condition("Ready"); ready.Reason != "ManifestChanged" ||
		!strings.Contains(ready.Message, "spec.clusterName, spec.defaultNodePool.nodeCount") {
		t.Errorf("status of a changed manifest: Ready %+v, want ManifestChanged naming both fields", ready)
	}
	gone := func(string) (bool, error) { return false, nil }
	if ready := d.Status(ctx, p, deploy.StatusOptions{Exists: gone}).Report.Condition("Ready"); ready.Reason != "ReferenceMissing" ||
		!strings.Contains(ready.Message, "digitaloceankubernetescluster/platform-prod") {
		t.Errorf("status of a pool whose cluster stack is gone: Ready %+v", ready)
	}
}

// Promise: status-advises-no-refused-up
func TestStatusAdvisesUpForAChangeUpMakesAndTheRefusalForOneUpRefuses(t *testing.T) {
	ctx := context.Background()
	const haOn, haOff = "\nspec:\n  highlyAvailable: true\n", "\nspec:\n  highlyAvailable: false\n"
	for _, c := range []struct {
		name      string
		edit      []string
		advice    string
		notAdvice string
	}{
		{"a node count up scales in place is advised to up", []string{"\nspec:\n", haOn, "nodeCount: 2", "nodeCount: 3"},
			"(spec.defaultNodePool.nodeCount); run up", "refuses"},
		{"high availability turned off, which DigitalOcean refuses, says up's refusal", []string{"\nspec:\n", haOff},
			"(spec.highlyAvailable); up refuses it (spec.highlyAvailable: DigitalOcean's API refuses to turn high availability off", "run up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _ := deployer()
			mustUp(ctx, t, d, cluster(t, "\nspec:\n", haOn))
			ready := d.Status(ctx, cluster(t, c.edit...), deploy.StatusOptions{}).Report.Condition("Ready")
			if ready.Reason != outcome.ManifestChanged || !strings.Contains(ready.Message, c.advice) || strings.Contains(ready.Message, c.notAdvice) {
				t.Errorf("Ready %+v, want ManifestChanged saying %q and not %q", ready, c.advice, c.notAdvice)
			}
		})
	}
}

// mustText is a namedCluster's manifest text, for editing.
func mustText(t *testing.T, c deploytarget.Target) string {
	t.Helper()
	return `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: ` + c.Stack[:strings.LastIndex(c.Stack, "-")] + `
  env: ` + c.Stack[strings.LastIndex(c.Stack, "-")+1:] + `
spec:
  clusterName: platform
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  deletionProtection: false
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`
}

func TestDriftNamesTheManifestFieldsTheCloudDisagreesOnAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	if o := d.Drift(ctx, c); o.Status != outcome.Done || len(o.Drift) != 0 {
		t.Errorf("drift right after up: %s %v", o.Status, o.Drift)
	}
	b.Edit(c.Key(), clusterType, "dev-fra1", "tags", []any{"edited-in-the-console"})
	updates := calls(b, "update")
	o := d.Drift(ctx, c)
	if o.Status != outcome.Drifted || len(o.Drift) != 1 || o.Drift[0].Field != "spec.tags" {
		t.Fatalf("drift after a console edit: %s %+v, want spec.tags named", o.Status, o.Drift)
	}
	if live, _ := o.Drift[0].Live.([]any); len(live) != 1 || live[0] != "edited-in-the-console" {
		t.Errorf("the cloud's value %v, want the console's", o.Drift[0].Live)
	}
	if calls(b, "update") != updates {
		t.Error("drift deployed something")
	}
}

func TestAdoptReadsADigitalOceanCountWhereTheImportFilesItAndListsItForTheNextUp(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t, "nodeCount: 2", "nodeCount: 5")
	// The live cluster as an import reads it: the provider files the node count as actualNodeCount.
	live := map[string]any{"name": "dev-fra1", "region": "fra1", "version": "1.31.1-do.5",
		"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "actualNodeCount": float64(2)}}
	b.Live("cluster-1", live)
	o := d.Adopt(ctx, c, "cluster-1", deploy.AdoptOptions{})
	var found bool
	for _, dis := range o.InPlace {
		if dis.Field == "spec.defaultNodePool.nodeCount" && dis.Manifest == float64(5) && dis.Live == float64(2) && dis.Effect == "update" {
			found = true
		}
	}
	if o.Status != outcome.Done || !found {
		t.Errorf("adopt with another count: %s %+v, want adopted listing spec.defaultNodePool.nodeCount: manifest 5, live 2, in place", o.Status, o.InPlace)
	}
}

func TestAFailedPreviewOfANewStackLeavesNoStackBehindAndSaysTheEnginesCause(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	b.Fail(c.Key(), "preview", &stackstate.EngineError{Command: "preview", Cause: "401 Unable to authenticate you"})
	o := d.Preview(ctx, c, deploy.PreviewOptions{})
	var engine *stackstate.EngineError
	if o.Status != outcome.Failed || !errors.As(o.Err, &engine) || !strings.Contains(o.Err.Error(), "401 Unable to authenticate you") {
		t.Errorf("a failed preview: %s %v, want failed with the cause", o.Status, o.Err)
	}
	if b.Has(c.Key()) {
		t.Error("a failed preview left an empty stack")
	}
}

func TestStatusReadsTheCloudOnlyWhenAskedToCheckDrift(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	previews := calls(b, "preview")
	if got := d.Status(ctx, c, deploy.StatusOptions{}).Report.Condition("Drifted"); got.Reason != "NotChecked" || calls(b, "preview") != previews {
		t.Errorf("status without Drift: Drifted %+v after %d previews, want NotChecked and none", got, calls(b, "preview")-previews)
	}
	if got := d.Status(ctx, c, deploy.StatusOptions{Drift: true}).Report.Condition("Drifted"); got.Reason != "InSync" || calls(b, "preview") != previews+1 {
		t.Errorf("status with Drift: Drifted %+v, want InSync from one preview", got)
	}
}

func TestStatusNamesAStackBeforeAndAfterItIsDeployedAsUpsReportDoes(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := namedCluster(t, "platform", "prod", "")
	before := d.Status(ctx, c, deploy.StatusOptions{}).Report.Stack
	up := d.Up(ctx, c, deploy.UpOptions{Yes: true})
	if up.Status != outcome.Done {
		t.Fatalf("up: %s %v", up.Status, up.Err)
	}
	after := d.Status(ctx, c, deploy.StatusOptions{}).Report.Stack
	want := runreport.NewReport("up", []outcome.Outcome{up}).Stacks[0].Stack
	if before != want || after != want {
		t.Errorf("status names the stack %q before up and %q after, up's report %q", before, after, want)
	}
}

func TestAFieldWrittenBackAsTheCloudHasItIsRefusedOnlyWhenTheEngineWouldReplace(t *testing.T) {
	ctx := context.Background()
	text := manifest(t, "digitaloceankubernetescluster/minimal.yaml") // deletionProtection on
	withVPC := strings.Replace(text, "  region: fra1\n", "  region: fra1\n  vpc:\n    value: 5a4981aa-0000-4000-8000-000000000001\n", 1)
	tests := []struct {
		name string
		// replaces: the provider replaces the cluster on the field (a VPC other than the cluster's).
		replaces bool
		want     outcome.Status
	}{
		{"the cluster's own VPC written back deploys", false, outcome.Done},
		{"another VPC is refused", true, outcome.Blocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			if tt.replaces {
				b.Replaces("vpcUuid")
			}
			mustUp(ctx, t, d, target(t, "cluster.yaml", text))
			written := target(t, "cluster.yaml", withVPC)
			if o := d.Preview(ctx, written, deploy.PreviewOptions{}); o.Status != tt.want {
				t.Errorf("preview: %s %q %v, want %s", o.Status, o.Reason, o.Err, tt.want)
			}
			if o := d.Up(ctx, written, deploy.UpOptions{Yes: true}); o.Status != tt.want {
				t.Errorf("up: %s %q %v, want %s", o.Status, o.Reason, o.Err, tt.want)
			}
		})
	}
}

// A stack an earlier release deployed recorded its generation from the binary form of the day, in
// which regions were enum numbers: the same manifest is Ready, a changed one is not.
func TestStatusOfAStackWhoseGenerationWasComputedOtherwiseReadsItsRecordedManifest(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := namedCluster(t, "platform", "prod", "")
	mustUp(ctx, t, d, c)
	b.RecordGeneration(c.Key(), "0123456789ab")
	if ready := d.Status(ctx, c, deploy.StatusOptions{}).Report.Condition("Ready"); ready.Status != "True" {
		t.Errorf("status of the manifest the stack recorded: Ready %+v, want True", ready)
	}
	changed := target(t, "platform.yaml", strings.Replace(mustText(t, c), "nodeCount: 2", "nodeCount: 5", 1))
	if ready := d.Status(ctx, changed, deploy.StatusOptions{}).Report.Condition("Ready"); ready.Reason != "ManifestChanged" ||
		!strings.Contains(ready.Message, "spec.defaultNodePool.nodeCount") {
		t.Errorf("status of a changed manifest: Ready %+v, want ManifestChanged naming the field", ready)
	}
}

// Each `pulumi stack export` is a CLI run of its own (a process, the passphrase's key): an up
// that rotates nothing reads the state once.
func TestAnUpThatRotatesNothingReadsTheStatesOnce(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	before := calls(b, "export")
	mustUp(ctx, t, d, cluster(t, "nodeCount: 2", "nodeCount: 3"))
	if n := calls(b, "export") - before; n != 1 {
		t.Errorf("the scaling up exported the state %d times, want 1: %v", n, b.Calls())
	}
}
