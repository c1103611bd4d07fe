package deploy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// steps are a rotation's steps as diff plans them: action and pool, in order.
func steps(pairs ...string) []rotation.Step {
	var out []rotation.Step
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, rotation.Step{Action: pairs[i], Pool: pairs[i+1]})
	}
	return out
}

func TestUpCarriesOutTheHopsAndTheRenameDiffPlans(t *testing.T) {
	kind := &kinds.Rotation{Nodes: 2, ReadyTimeout: time.Minute, Final: "workers"}
	hop := func(from, to string) []string {
		return []string{rotation.StepCreate, to, rotation.StepWait, to, rotation.StepCordon, from, rotation.StepDrain, from, rotation.StepDelete, from}
	}
	for _, c := range []struct {
		name  string
		steps []rotation.Step
		want  rotation.Settings
	}{
		{"DigitalOcean renames the surge pool", steps(append(hop("workers", "workers-surge"), rotation.StepRename, "workers-surge")...),
			rotation.Settings{Old: "workers", Surge: "workers-surge", Final: "workers"}},
		{"Civo keeping the name goes there and back", steps(append(hop("workers", "workers-surge"), hop("workers-surge", "workers")...)...),
			rotation.Settings{Old: "workers", Surge: "workers-surge", Back: "workers"}},
		{"Civo renaming the pool makes one hop to the new name", steps(hop("workers", "apps")...),
			rotation.Settings{Old: "workers", Surge: "apps"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := rotationrun.PlanOf(rotation.Rotation{Steps: c.steps}, "workers", kind)
			if got.Old != c.want.Old || got.Surge != c.want.Surge || got.Back != c.want.Back || got.Final != c.want.Final ||
				got.Nodes != 2 || got.ReadyTimeout != time.Minute {
				t.Errorf("plan %+v, want %+v with the kind's nodes and timeout", got, c.want)
			}
		})
	}
}

func TestARotationStoppedInItsSecondHopIsRecordedAndShownAsSuch(t *testing.T) {
	ctx := context.Background()
	s := newStateStack(t)
	rec := &rotationrun.RotationRecord{Pool: "workers", State: rotation.State{Hop: 1, Phase: rotation.Cordoned, OldID: "workers-surge", SurgeID: "workers"}}
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
	cond := rotationrun.RotationUnderWay(st.Outputs(), outcome.Condition{Type: "Ready", Status: "True"})
	if cond.Status != "False" || !strings.Contains(cond.Message, "second hop") || !strings.Contains(cond.Message, "workers-surge") {
		t.Errorf("status of a rotation stopped in its second hop: %+v", cond)
	}
}
