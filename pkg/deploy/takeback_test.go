package deploy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// A create the cloud carried out but answered wrong leaves a cluster carrying the stack's mark:
// the same up takes it into the stack and goes on, and one made before (by an up that ended) is
// taken back by the next. Anything the mark does not make the stack's own is refused, as before.
// Promise: up-takes-back-what-its-create-left
func TestUpTakesBackTheOneClusterItsOwnCreateLeftAndRefusesAnyOther(t *testing.T) {
	// Promise: up-takes-back-only-its-own-mark
	ctx := context.Background()
	tests := []struct {
		name string
		// failFirst makes the up's first engine update fail as a 500 after the cloud made the
		// cluster; else the cluster is in the cloud before the up starts.
		failFirst bool
		// tags are the cloud's cluster's tags, given the stack's own mark and another backend's
		// mark of the same stack; n is how many clusters of the name the cloud holds.
		tags    func(own, other string) []string
		n       int
		takenBy bool
		// elsewhere: the refusal says the cluster is this stack's in another backend.
		elsewhere bool
	}{
		{name: "a create answered 500 is taken back by the same up", failFirst: true,
			tags: func(own, _ string) []string { return []string{"resource-name:dev-fra1", own} }, n: 1, takenBy: true},
		{name: "what an earlier up left is taken back by the next", tags: func(own, _ string) []string { return []string{own} }, n: 1, takenBy: true},
		{name: "a cluster without the mark (made in a console) is refused",
			tags: func(string, string) []string { return []string{"resource-name:dev-fra1"} }, n: 1},
		{name: "a cluster of the same stack in another backend is refused, saying so",
			tags: func(_, other string) []string { return []string{other} }, n: 1, elsewhere: true},
		{name: "two clusters carrying the mark are refused: which one is the stack's is not known",
			tags: func(own, _ string) []string { return []string{own} }, n: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := deployer()
			c := cluster(t)
			other, _ := deployer()
			other.Backend.(interface{ SetID(string) }).SetID("another")
			own, otherMark := c.MarkedIn(b).Mark().Tag(), c.MarkedIn(other.Backend).Mark().Tag()
			if own == otherMark {
				t.Fatalf("two backends give stack %s one mark %s", c.Key(), own)
			}
			var live []kinds.Live
			for i := range tt.n {
				id := "made-" + string(rune('1'+i))
				inputs := planned(t, c, clusterType)
				b.Live(id, inputs)
				live = append(live, kinds.Live{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: id, Tags: tt.tags(own, otherMark)})
			}
			failing := c
			failing.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
				if tt.failFirst && calls(b, "update") == 0 {
					return kinds.Found{}, nil // before the create
				}
				return kinds.Found{Live: live}, nil
			}
			if tt.failFirst {
				b.Fail(c.Key(), "update", &stackstate.EngineError{Command: "update", Cause: "500 Internal Server Error"})
			}
			o := d.Up(ctx, failing, deploy.UpOptions{Yes: true})
			if !tt.takenBy {
				var existing *createguard.ExistingError
				if o.Status != outcome.Blocked || !errors.As(o.Err, &existing) || len(o.Unmanaged) != tt.n {
					t.Fatalf("up: %s %v %v, want refused naming the %d in the cloud", o.Status, o.Err, o.Unmanaged, tt.n)
				}
				if says := strings.Contains(o.Err.Error(), "carries the mark of this stack in another backend"); says != tt.elsewhere {
					t.Errorf("up's refusal %q says the cluster is this stack's in another backend: %v, want %v", o.Err, says, tt.elsewhere)
				}
				return
			}
			if o.Status != outcome.Done || !strings.Contains(o.Reason, "took back cluster dev-fra1 in region fra1 (id made-1)") {
				t.Fatalf("up: %s %q %v, want done, saying it took back made-1", o.Status, o.Reason, o.Err)
			}
			st := stateOf(ctx, t, b, c)
			if ids, _ := st.IDs(clusterType); len(ids) != 1 || ids[0] != "made-1" {
				t.Errorf("the stack holds %v after the up, want made-1 alone", ids)
			}
		})
	}
}

// Promise: every-create-carries-the-stack-mark
func TestWhatUpCreatesCarriesItsStacksMarkAndAnotherBackendsStackOfTheNameAnother(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		example, typ string
		// props are the inputs that hold tags.
		props []string
	}{
		{"digitaloceankubernetescluster/minimal.yaml", clusterType, []string{"tags", "nodePool"}},
		{"digitaloceankubernetesnodepool/minimal.yaml", "digitalocean:index/kubernetesNodePool:KubernetesNodePool", []string{"tags"}},
		{"civokubernetescluster/minimal.yaml", "civo:index/kubernetesCluster:KubernetesCluster", []string{"tags"}},
		// Civo pools keep no tags: the mark is a node label's value.
		{"civokubernetesnodepool/minimal.yaml", "clusterplane:civo:NodePool", []string{"labels"}},
	}
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			var marks []string
			for _, id := range []string{"one", "two"} {
				d, b := deployer()
				b.SetID(id)
				tg := target(t, "m.yaml", manifest(t, tt.example))
				mustUp(ctx, t, d, tg)
				mark := tg.MarkedIn(b).Mark().Label() // in the tag too
				marks = append(marks, mark)
				st := stateOf(ctx, t, b, tg)
				found := false
				for _, r := range st.Deployment.Resources {
					if string(r.Type) != tt.typ {
						continue
					}
					found = true
					for _, prop := range tt.props {
						if !strings.Contains(fmt.Sprint(r.Inputs[prop]), mark) {
							t.Errorf("%s's %s = %v, without the stack's mark %s", tt.typ, prop, r.Inputs[prop], mark)
						}
					}
				}
				if !found {
					t.Errorf("the state holds no %s", tt.typ)
				}
			}
			if marks[0] == marks[1] {
				t.Errorf("one stack in two backends carries one mark %s", marks[0])
			}
		})
	}
}

// What the fleet scan found carrying a stack's mark that the stack does not record makes its
// drift drifted (exit 3) and its status --drift Drifted, each naming the id and the adopt
// command, whether the scan vouched for the rest of the stack or the stack holds nothing; plain
// status, which reads no cloud, says nothing of it.
func TestDriftAndStatusNameTheClustersTheScanFoundCarryingTheStacksMark(t *testing.T) {
	ctx := context.Background()
	lost := []kinds.Live{{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "lost-1"}}
	tests := []struct {
		name    string
		deploy  bool
		scanned deploy.Scanned
	}{
		{name: "a stack the scan vouched for", deploy: true, scanned: deploy.Scanned{Unchanged: true, Why: "as recorded", Unrecorded: lost}},
		{name: "a stack that holds nothing", scanned: deploy.Scanned{HoldsNothing: true, Unrecorded: lost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := deployer()
			c := cluster(t)
			if tt.deploy {
				mustUp(ctx, t, d, c)
			}
			d.Scanned = map[string]deploy.Scanned{c.Key(): tt.scanned}
			o := d.Drift(ctx, c)
			if o.Status != outcome.Drifted || o.NotRun || len(o.Unmanaged) != 1 || !strings.Contains(o.Reason, "`clusterplane adopt cluster.yaml --id lost-1`") {
				t.Errorf("drift: %s (not run %v) %q %v, want drifted naming lost-1 and its adopt command", o.Status, o.NotRun, o.Reason, o.Unmanaged)
			}
			st := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
			if c := st.Report.Condition("Drifted"); c.Status != "True" || c.Reason != outcome.UnrecordedInCloud || !strings.Contains(c.Message, "lost-1") {
				t.Errorf("status --drift: Drifted %+v, want True, UnrecordedInCloud, naming lost-1", c)
			}
			if st := d.Status(ctx, c, deploy.StatusOptions{}); st.Report.Condition("Drifted").Reason == outcome.UnrecordedInCloud {
				t.Errorf("plain status names what only the cloud's list found")
			}
		})
	}
}

// A stack that holds nothing here, whose cluster the fleet scan found carrying its mark in another
// backend, is not said to be deployed by up: drift says up here refuses it, and why, and is
// blocked by it, as up is.
// Promise: drift-says-up-refuses-another-backends-cluster
// Promise: not-deployed-drift-says-up-or-why-refused
func TestDriftOfAStackDeployedFromAnotherBackendSaysUpHereRefusesIt(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := cluster(t)
	there := []kinds.Live{{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "there-1"}}
	d.Scanned = map[string]deploy.Scanned{c.Key(): {HoldsNothing: true, ElsewhereMarked: there}}
	o := d.Drift(ctx, c)
	for _, says := range []string{"not deployed in this backend, and up here is refused", "carries the mark of this stack in another backend", "there-1"} {
		if !strings.Contains(o.Reason, says) {
			t.Errorf("drift: %s %q, want it to say %q", o.Status, o.Reason, says)
		}
	}
	if len(o.Unmanaged) != 1 || o.Unmanaged[0].ID != "there-1" {
		t.Errorf("drift lists %+v, want there-1, as up's refusal lists it", o.Unmanaged)
	}
	if strings.Contains(o.Reason, "up deploys it") || o.Status != outcome.Blocked {
		t.Errorf("drift: %s %q, want blocked (exit 3, as up's refusal), no promise that up deploys it, and no drift of this backend's stack", o.Status, o.Reason)
	}
	st := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
	if ready := st.Report.Condition("Ready"); !strings.Contains(ready.Message, "up here is refused") || strings.Contains(ready.Message, "run up") ||
		len(st.Unmanaged) != 1 {
		t.Errorf("status --drift: Ready %+v, unmanaged %v; want it to say up here is refused, not to run up, and to list there-1", ready, st.Unmanaged)
	}
	if d.Scanned = nil; !strings.Contains(d.Drift(ctx, c).Reason, "up deploys it") {
		t.Errorf("without the scan's finding drift no longer says up deploys the stack")
	}
}

// A take-back writes the stack before the engine runs: without --yes it is not made, the up
// refused (exit 3) saying what --yes would take back; and a cluster carrying this stack's mark
// that another stack of the kind holds (adopted there) is never taken from it.
// Promise: take-back-needs-yes
func TestATakeBackNeedsYesAndNeverTakesWhatAnotherStackHolds(t *testing.T) {
	ctx := context.Background()
	t.Run("without --yes", func(t *testing.T) {
		d, b := deployer()
		c := cluster(t)
		b.Live("made-1", planned(t, c, clusterType))
		c.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
			return kinds.Found{Live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "made-1", Tags: []string{c.MarkedIn(b).Mark().Tag()}}}}, nil
		}
		o := d.Up(ctx, c, deploy.UpOptions{})
		if o.Status != outcome.Blocked || !strings.Contains(o.Reason, "up --yes takes it back") || calls(b, "update") != 0 || b.Has(c.Key()) {
			t.Errorf("up without --yes: %s %q, %d updates, stack left %v: want blocked naming --yes, nothing written", o.Status, o.Reason,
				calls(b, "update"), b.Has(c.Key()))
		}
	})
	t.Run("held by another stack", func(t *testing.T) {
		d, b := deployer()
		other := namedCluster(t, "other", "dev", "")
		mustUp(ctx, t, d, other)
		st := stateOf(ctx, t, b, other)
		ids, _ := st.IDs(clusterType)
		c := cluster(t)
		c.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
			return kinds.Found{Live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: ids[0], Tags: []string{c.MarkedIn(b).Mark().Tag()}}}}, nil
		}
		var existing *createguard.ExistingError
		if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Blocked || !errors.As(o.Err, &existing) || existing.ManagedBy != other.Key() {
			t.Errorf("up: %s %v, want refused naming %s, which holds it", o.Status, o.Err, other.Key())
		}
	})
}

// A preview of a stack whose create would find what its own earlier create left says that up
// takes it back, and writes nothing; an up of the plan that preview saved takes it back as the
// plan said, and creates none.
func TestAPreviewSaysWhatUpWouldTakeBackAndUpWithItsPlanTakesItBack(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	b.Live("made-1", planned(t, c, clusterType))
	c.Lookup = func(context.Context, proto.Message, kinds.Resolve) (kinds.Found, error) {
		return kinds.Found{Live: []kinds.Live{{Type: "cluster", Name: "dev-fra1", Where: "region fra1", ID: "made-1", Tags: []string{c.MarkedIn(b).Mark().Tag()}}}}, nil
	}
	const says = "up takes back cluster dev-fra1 in region fra1 (id made-1) instead of creating one"
	if o := d.Preview(ctx, c, deploy.PreviewOptions{}); o.Status != outcome.Done || !strings.Contains(o.Reason, says) || b.Has(c.Key()) {
		t.Fatalf("preview: %s %q %v, stack left %v: want done, saying %q, nothing written", o.Status, o.Reason, o.Err, b.Has(c.Key()), says)
	}
	p := savePlan(t, d, c)
	if len(p.Stacks) != 1 || b.Has(c.Key()) {
		t.Fatalf("preview --save-plan planned %d stacks, stack left %v", len(p.Stacks), b.Has(c.Key()))
	}
	o := d.Up(ctx, c, deploy.UpOptions{Yes: true, Planned: &p.Stacks[0]})
	if o.Status != outcome.Done || !strings.Contains(o.Reason, "took back cluster dev-fra1 in region fra1 (id made-1)") {
		t.Fatalf("up --plan: %s %q %v, want done, saying it took back made-1", o.Status, o.Reason, o.Err)
	}
	if ids, _ := stateOf(ctx, t, b, c).IDs(clusterType); len(ids) != 1 || ids[0] != "made-1" {
		t.Errorf("the stack holds %v after up --plan, want made-1 alone", ids)
	}
}

// stateOf is the state of target's stack in b, read as an operation reads it.
func stateOf(ctx context.Context, t *testing.T, b stackstate.Backend, target deploytarget.Target) stackstate.State {
	t.Helper()
	s, err := b.Open(ctx, target.Project, target.Stack, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
