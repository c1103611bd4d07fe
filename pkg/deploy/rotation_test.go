package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

func TestARotationTheManifestAllowsIsShownByPreviewAndNeverSentToTheEngineAsAReplacement(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	if o := d.Up(ctx, cluster(t), deploy.UpOptions{Yes: true}); o.Status != deploy.Done {
		t.Fatalf("up: %s %v", o.Status, o.Err)
	}
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
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
