package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// stateStack is a stack that only holds a state, as export and import see it.
type stateStack struct {
	stackstate.Stack
	raw apitype.UntypedDeployment
}

func (s *stateStack) State(context.Context) (stackstate.State, error) {
	return stackstate.StateOf(s.raw)
}
func (s *stateStack) Import(_ context.Context, raw apitype.UntypedDeployment) error {
	s.raw = raw
	return nil
}

const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"

func newStateStack(t *testing.T) *stateStack {
	t.Helper()
	state := `{"manifest":{"time":"2026-11-23T22:00:00Z","magic":"m","version":"v3"},"secrets_providers":{"type":"passphrase"},"resources":[
	 {"urn":"urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev","type":"pulumi:pulumi:Stack","outputs":{"kubeconfig":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","ciphertext":"v1:abc"}}},
	 {"urn":"urn:pulumi:dev::p::` + poolType + `::workers","type":"` + poolType + `","id":"old-id",
	  "inputs":{"size":"s-4vcpu-8gb"},"outputs":{"id":"old-id","size":"s-4vcpu-8gb"},"custom":true}]}`
	return &stateStack{raw: apitype.UntypedDeployment{Version: 3, Deployment: json.RawMessage(state)}}
}

// Promise: rotation-never-a-replacement
func TestARotationsPhaseIsRecordedInTheStateAndTheStackThenPointsAtTheNewPool(t *testing.T) {
	ctx := context.Background()
	s := newStateStack(t)
	rec := &rotationrun.RotationRecord{Pool: "workers", State: rotation.State{Phase: rotation.Cordoned, OldID: "old-id", SurgeID: "new-id"}}
	if err := rotationrun.RecordRotation(ctx, s, rec); err != nil {
		t.Fatal(err)
	}
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rotationrun.RecordedRotation(st.Outputs())
	if err != nil || got == nil || *got != *rec {
		t.Fatalf("recorded %+v, %v; want %+v", got, err, rec)
	}
	if !st.Outputs()["kubeconfig"].Secret {
		t.Errorf("the secret output lost its encryption: %v", st.Outputs()["kubeconfig"])
	}
	cond := rotationrun.RotationUnderWay(st.Outputs(), outcome.Condition{Type: "Ready", Status: "True"})
	if cond.Status != "False" || cond.Reason != "RotationUnderWay" || !strings.Contains(cond.Message, `"cordoned"`) {
		t.Errorf("status of a stopped rotation: %+v", cond)
	}

	if err := rotationrun.PointPoolAt(ctx, s, poolType, "new-id"); err != nil {
		t.Fatal(err)
	}
	st, _ = s.State(ctx)
	for _, r := range st.Deployment.Resources {
		if string(r.Type) != poolType {
			continue
		}
		if r.ID != "new-id" || r.Outputs["id"] != "new-id" || r.Inputs["size"] != "s-4vcpu-8gb" || !r.Custom {
			t.Errorf("the pool's state after pointing it at the new pool: %+v", r)
		}
	}
	if !strings.Contains(string(s.raw.Deployment), `"secrets_providers"`) {
		t.Errorf("the edit dropped the state's secrets provider: %s", s.raw.Deployment)
	}
	done := &rotationrun.RotationRecord{Pool: "workers", State: rotation.State{Phase: rotation.Done, OldID: "old-id", SurgeID: "new-id"}}
	if err := rotationrun.RecordRotation(ctx, s, done); err != nil {
		t.Fatal(err)
	}
	st, _ = s.State(ctx)
	if cond := rotationrun.RotationUnderWay(st.Outputs(), outcome.Condition{Type: "Ready", Status: "True"}); cond.Status != "True" {
		t.Errorf("a finished rotation still shows in status: %+v", cond)
	}
}

// Promise: rotation-never-a-replacement
func TestAPreviewOfARotationUpCarriesOutIsDoneUnlessSomethingElseIsReplaced(t *testing.T) {
	table := &effects.Table{Types: map[effects.Role]string{effects.NodePool: poolType}}
	rotations := []rotation.Rotation{{Pool: "spec", Name: "workers", Changes: []string{"spec.size"},
		Steps: []rotation.Step{{Action: rotation.StepCreate, Pool: "workers-surge"}}}}
	for _, c := range []struct {
		name   string
		types  []string
		status outcome.Status
	}{
		{"only the pool replaced", []string{poolType}, outcome.Done},
		{"another resource replaced too", []string{poolType, "digitalocean:index/kubernetesCluster:KubernetesCluster"}, outcome.Blocked},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := stackstate.Result{Changes: map[string]int{"replace": len(c.types)}}
			for _, typ := range c.types {
				res.Steps = append(res.Steps, stackstate.Step{Type: typ, Action: "replace"})
			}
			o := outcome.Outcome{Status: outcome.Blocked, Reason: "replaces: " + res.Summary(), Result: &res}
			rotationrun.PreviewRotation(&o, deploytarget.Target{Kind: kinds.Kind{Effects: table}}, rotations)
			if o.Status != c.status || len(o.Rotations) != 1 {
				t.Errorf("preview %s (%s), %d rotations; want %s", o.Status, o.Reason, len(o.Rotations), c.status)
			}
			if c.status == outcome.Done && !strings.Contains(o.Reason, "rotation pool workers") {
				t.Errorf("the reason %q does not name the rotation", o.Reason)
			}
		})
	}
}

func TestAPoolUpRotatesReadsAsOneRotationNotTheEnginesReplaceAndCreateReplacement(t *testing.T) {
	pool := func(op string, effect effects.Effect) runreport.ResourceChange {
		return runreport.ResourceChange{Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool", Name: "batch", Operation: op,
			Fields: []runreport.FieldEffect{{Path: "spec.size", Changed: true, Effect: effect}, {Path: "spec.labels", Effect: effects.Update}}}
	}
	// The engine's delete-replaced step names no field (newcomer6 saw it left in the report).
	deleted := runreport.ResourceChange{Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool", Name: "batch", Operation: "delete-replaced"}
	tests := []struct {
		name       string
		changes    []runreport.ResourceChange
		counts     map[string]int
		want       []string
		wantCounts map[string]int
	}{
		{"a rotation", []runreport.ResourceChange{pool("replace", effects.Rotate), pool("create-replacement", effects.Rotate)},
			map[string]int{"replace": 1, "same": 3}, []string{"rotate"}, map[string]int{"rotate": 1, "same": 3}},
		{"a rotation whose old pool goes first", []runreport.ResourceChange{deleted, pool("replace", effects.Rotate), pool("create-replacement", effects.Rotate)},
			map[string]int{"replace": 1}, []string{"rotate"}, map[string]int{"rotate": 1}},
		{"a replacement that is no rotation stays one",
			[]runreport.ResourceChange{pool("replace", effects.Replace), pool("create-replacement", effects.Replace), deleted},
			map[string]int{"replace": 1}, []string{"replace", "create-replacement", "delete-replaced"}, map[string]int{"replace": 1}},
		{"an update beside it stays", []runreport.ResourceChange{pool("update", effects.Update)},
			map[string]int{"update": 1}, []string{"update"}, map[string]int{"update": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resources, counts := runreport.Rotated(tt.changes, tt.counts)
			var got []string
			for _, rc := range resources {
				got = append(got, rc.Operation)
				if rc.Operation == "rotate" && len(rc.Fields) == 0 {
					t.Errorf("the rotation names no field: %+v", rc)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || fmt.Sprint(counts) != fmt.Sprint(tt.wantCounts) {
				t.Errorf("operations %v counted %v, want %v counted %v", got, counts, tt.want, tt.wantCounts)
			}
		})
	}
}

// status says both ways on from a rotation stopped before its drain ended (up finishes it or rolls
// it back, as the manifest given says), and only the one way after it.
func TestStatusOfAStoppedRotationSaysARollBackOnlyWhileOneIsPossible(t *testing.T) {
	tests := []struct {
		phase    rotation.Phase
		rollBack bool
	}{
		{rotation.SurgeCreated, true},
		{rotation.SurgeReady, true},
		{rotation.Cordoned, true},
		{rotation.Drained, false},
		{rotation.OldDeleted, false},
	}
	for _, tt := range tests {
		rec, _ := json.Marshal(rotationrun.RotationRecord{Pool: "workers", State: rotation.State{ID: "r1", Phase: tt.phase, OldID: "old", SurgeID: "new"}})
		outputs := map[string]stackstate.Output{rotationrun.RotationOutput: {Value: string(rec)}}
		cond := rotationrun.RotationUnderWay(outputs, outcome.Condition{Type: "Ready", Status: "True"})
		if cond.Reason != "RotationUnderWay" {
			t.Fatalf("phase %s: %+v, want the rotation under way", tt.phase, cond)
		}
		if got := strings.Contains(cond.Message, "to roll it back"); got != tt.rollBack {
			t.Errorf("phase %s: %q offers a roll-back %t, want %t", tt.phase, cond.Message, got, tt.rollBack)
		}
	}
}

// The service shows a rotation's phase while up runs: each phase is told once the stack has
// recorded it, and a phase whose record failed is never told (it did not happen as far as a
// resume knows).
func TestEachRotationPhaseIsToldOnlyOnceTheStackHasRecordedIt(t *testing.T) {
	kubeconfig := []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: u, user: {token: not-used}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	var recorded, told []rotation.Phase
	d := &Deployer{Rotating: func(_ deploytarget.Target, pool string, s rotation.State) {
		if pool != "workers" || len(recorded) == 0 || recorded[len(recorded)-1] != s.Phase {
			t.Errorf("told phase %q of pool %s before the stack recorded it (recorded %v)", s.Phase, pool, recorded)
		}
		told = append(told, s.Phase)
	}}
	target := deploytarget.Target{Kind: kinds.Kind{Rotate: func(context.Context, proto.Message, string, kinds.Resolve) (*kinds.Rotation, error) {
		return &kinds.Rotation{Kubeconfig: func(context.Context) ([]byte, error) { return kubeconfig, nil }}, nil
	}}}
	run, err := newRotating(d).rotator(context.Background(), target, "old-id", "workers", nil, func(_ context.Context, s rotation.State) error {
		if s.Phase == rotation.Drained {
			return fmt.Errorf("the backend did not answer")
		}
		recorded = append(recorded, s.Phase)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, phase := range []rotation.Phase{rotation.Start, rotation.SurgeCreated, rotation.Drained, rotation.OldDeleted} {
		_ = run.Recorder.Save(context.Background(), rotation.State{Phase: phase})
	}
	if want := []rotation.Phase{rotation.Start, rotation.SurgeCreated, rotation.OldDeleted}; fmt.Sprint(told) != fmt.Sprint(want) {
		t.Errorf("told %q, want %q", told, want)
	}
}
