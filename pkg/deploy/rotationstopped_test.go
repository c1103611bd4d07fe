package deploy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/destroyguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A pool rotation an up stopped midway is its own condition: status --drift says Drifted is
// Unknown for it (Ready says where it stopped), never that the cloud drifted; and a destroy of the
// stack is refused before anything is deleted, since it would leave the surge pool unrecorded.
// Promise: destroy-refused-deletes-nothing
func TestARotationStoppedMidwayIsNoDriftAndRefusesADestroy(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"cluster.yaml": clusterText("prod", "prod")})
	b := deploytest.New()
	run := func(op pipeline.Step, guard destroyguard.Guard) []outcome.Outcome {
		t.Helper()
		outcomes, err := pipeline.Run(ctx, pipeline.Request{Paths: []string{dir}, Files: reading(t, "", false),
			Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 1, StackTimeout: time.Minute,
			Op: op, Guard: guard, Whole: guard != nil})
		if err != nil {
			t.Fatal(err)
		}
		return outcomes
	}
	up := run(pipeline.Up(deploy.UpOptions{Yes: true}), nil)
	key := up[0].Target.Key()
	rec, err := json.Marshal(rotationrun.RotationRecord{Pool: "default", State: rotation.State{ID: "r1", Phase: rotation.Cordoned, OldID: "old-id"}})
	if err != nil {
		t.Fatal(err)
	}
	b.SetOutput(key, rotationrun.RotationOutput, string(rec), false)

	st := run(pipeline.Status(true), nil)[0]
	if st.Report == nil {
		t.Fatalf("status: %s %v", st.Status, st.Err)
	}
	if c := st.Report.Condition("Drifted"); c.Status != "Unknown" || c.Reason != "RotationUnderWay" {
		t.Errorf("status --drift: Drifted %s/%s (%s); want Unknown/RotationUnderWay", c.Status, c.Reason, c.Message)
	}
	if c := st.Report.Condition("Ready"); c.Reason != "RotationUnderWay" {
		t.Errorf("status --drift: Ready %s/%s; want RotationUnderWay", c.Status, c.Reason)
	}

	held := b.Resources(key)
	destroyed := run(pipeline.Destroy(deploy.DestroyOptions{}), destroyguard.New(nil))
	if o := destroyed[0]; o.Status != outcome.Blocked || o.Err == nil || !strings.Contains(o.Err.Error(), "rotation of pool default is under way") {
		t.Errorf("destroy during a rotation: %s %v; want refused naming the rotation", o.Status, o.Err)
	}
	if n := calls(b, "destroy"); n != 0 || len(b.Resources(key)) != len(held) {
		t.Errorf("the refused destroy ran %d destroys and left %v of %v", n, b.Resources(key), held)
	}
}
