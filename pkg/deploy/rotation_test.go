package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// A kind whose rotations up does not carry out (no Rotate) has them planned
// only: preview and up stop before the engine, which would replace the pool or the cluster.
func TestARotationTheManifestAllowsIsShownByPreviewAndNeverSentToTheEngineAsAReplacement(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	resized.Rotate = nil
	for _, op := range []struct {
		name string
		run  func() deploy.Outcome
	}{
		{"preview", func() deploy.Outcome { return d.Preview(ctx, resized) }},
		{"up", func() deploy.Outcome { return d.Up(ctx, resized, deploy.UpOptions{Yes: true}) }},
	} {
		t.Run(op.name, func(t *testing.T) {
			updates := calls(b, "update")
			o := op.run()
			var rotation *deploy.RotationError
			if o.Status != deploy.Blocked || !errors.As(o.Err, &rotation) || len(rotation.Rotations) != 1 ||
				rotation.Rotations[0].Pool != "spec.defaultNodePool" {
				t.Fatalf("%s: %s %v, want blocked by the default pool's rotation", op.name, o.Status, o.Err)
			}
			if !strings.Contains(o.Err.Error(), "drain default") {
				t.Errorf("the error %q does not name the drain", o.Err)
			}
			if calls(b, "update") != updates {
				t.Errorf("the engine updated the stack: %v", b.Calls())
			}
			report := deploy.NewReport(op.name, []deploy.Outcome{o})
			if len(report.Stacks) != 1 || len(report.Stacks[0].Rotations) != 1 || len(report.Stacks[0].Rotations[0].Steps) == 0 {
				t.Errorf("the report holds no rotation: %+v", report.Stacks)
			}
		})
	}
}

// The DigitalOcean cluster kind carries out its default pool's rotation: preview reads the
// engine's replacement of the cluster as the rotation up does instead. A manifest that also
// changes something the engine would still replace is refused before anything is rotated.
func TestADefaultPoolRotationIsPreviewedAsUpCarriesItOutUnlessSomethingElseIsReplaced(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	if resized.Rotate == nil {
		t.Fatal("the DigitalOcean cluster kind does not rotate its default pool")
	}
	if o := d.Preview(ctx, resized); o.Status != deploy.Done || len(o.Rotations) != 1 || !strings.Contains(o.Reason, "rotation pool default") {
		t.Errorf("preview: %s (%s) %v, %d rotations; want done naming the rotation", o.Status, o.Reason, o.Err, len(o.Rotations))
	}

	moved := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}", "region: fra1", "region: ams3")
	moved.Rotate = func(context.Context, proto.Message, string, kinds.Resolve) (*kinds.Rotation, error) {
		t.Error("up readied a rotation the engine would undo by replacing the cluster")
		return nil, errors.New("no rotation")
	}
	updates := calls(b, "update")
	o := d.Up(ctx, moved, deploy.UpOptions{Yes: true})
	if o.Status != deploy.Blocked || o.Err == nil || !strings.Contains(o.Err.Error(), "spec.region") || !strings.Contains(o.Err.Error(), "nothing was rotated") {
		t.Errorf("up of a rotation and a region change: %s %v, want blocked naming spec.region", o.Status, o.Err)
	}
	if calls(b, "update") != updates {
		t.Errorf("the engine updated the stack: %v", b.Calls())
	}
}
