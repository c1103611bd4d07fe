package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
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
		name operation.Name
		run  func() outcome.Outcome
	}{
		{operation.Preview, func() outcome.Outcome { return d.Preview(ctx, resized, deploy.PreviewOptions{}) }},
		{operation.Up, func() outcome.Outcome { return d.Up(ctx, resized, deploy.UpOptions{Yes: true}) }},
	} {
		t.Run(string(op.name), func(t *testing.T) {
			updates := calls(b, "update")
			o := op.run()
			var rotation *rotationrun.RotationError
			if o.Status != outcome.Blocked || !errors.As(o.Err, &rotation) || len(rotation.Rotations) != 1 ||
				rotation.Rotations[0].Pool != "spec.defaultNodePool" {
				t.Fatalf("%s: %s %v, want blocked by the default pool's rotation", op.name, o.Status, o.Err)
			}
			if !strings.Contains(o.Err.Error(), "drain default") {
				t.Errorf("the error %q does not name the drain", o.Err)
			}
			if calls(b, "update") != updates {
				t.Errorf("the engine updated the stack: %v", b.Calls())
			}
			report := runreport.NewReport(op.name, []outcome.Outcome{o})
			if len(report.Stacks) != 1 || len(report.Stacks[0].Rotations) != 1 || len(report.Stacks[0].Rotations[0].Steps) == 0 {
				t.Errorf("the report holds no rotation: %+v", report.Stacks)
			}
		})
	}
}

// A rotation up refuses names the manifest's kind and its cloud as the cloud's driver names it,
// not a list of clouds: which pools rotate is the kinds' to say.
func TestARefusedRotationNamesTheKindAndTheCloudItsDriverNames(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	resized.Rotate = nil
	o := d.Preview(ctx, resized, deploy.PreviewOptions{})
	var refused *rotationrun.RotationError
	if !errors.As(o.Err, &refused) {
		t.Fatalf("preview: %s %v, want a refused rotation", o.Status, o.Err)
	}
	if want := "DigitalOceanKubernetesCluster on DigitalOcean readies none"; !strings.Contains(o.Err.Error(), want) {
		t.Errorf("the error %q does not say %q", o.Err, want)
	}
}

// The DigitalOcean cluster kind carries out its default pool's rotation: preview reads the
// engine's replacement of the cluster as the rotation up does instead. A manifest that also
// changes something the engine would still replace is refused before anything is rotated.
// Promise: rotation-with-replacement-refused
func TestADefaultPoolRotationIsPreviewedAsUpCarriesItOutUnlessSomethingElseIsReplaced(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	if resized.Rotate == nil {
		t.Fatal("the DigitalOcean cluster kind does not rotate its default pool")
	}
	// Preview asks the cloud whether the surge pool's name is free (up refuses a pool it did not make).
	resized.Rotate = rotatingIn(&pools{})
	if o := d.Preview(ctx, resized, deploy.PreviewOptions{}); o.Status != outcome.Done || len(o.Rotations) != 1 || !strings.Contains(o.Reason, "rotation pool default") {
		t.Errorf("preview: %s (%s) %v, %d rotations; want done naming the rotation", o.Status, o.Reason, o.Err, len(o.Rotations))
	}

	moved := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}", "region: fra1", "region: ams3")
	moved.Rotate = func(context.Context, proto.Message, string, kinds.Resolve) (*kinds.Rotation, error) {
		t.Error("up readied a rotation the engine would undo by replacing the cluster")
		return nil, errors.New("no rotation")
	}
	updates := calls(b, "update")
	o := d.Up(ctx, moved, deploy.UpOptions{Yes: true})
	if o.Status != outcome.Blocked || o.Err == nil || !strings.Contains(o.Err.Error(), "spec.region") || !strings.Contains(o.Err.Error(), "nothing was rotated") {
		t.Errorf("up of a rotation and a region change: %s %v, want blocked naming spec.region", o.Status, o.Err)
	}
	if calls(b, "update") != updates {
		t.Errorf("the engine updated the stack: %v", b.Calls())
	}
}

// pools is a cluster's pool API as a rotation asks it: taken names pools someone else made.
type pools struct{ taken map[string]string }

func (p *pools) Find(_ context.Context, name, mark string) (string, error) {
	if id := p.taken[name]; id != "" {
		return "", &rotation.ForeignPoolError{Cluster: "c", Name: name, ID: id}
	}
	return "", nil
}
func (p *pools) Create(context.Context, string, string) (string, error) {
	return "", errors.New("not in this test")
}
func (p *pools) Delete(context.Context, string) error                  { return errors.New("not in this test") }
func (p *pools) Rename(context.Context, string, string) error          { return errors.New("not in this test") }
func (p *pools) Marked(context.Context) ([]rotation.MarkedPool, error) { return nil, nil }

// rotatingIn is a kind's Rotate over p.
func rotatingIn(p kinds.Pools) kinds.Rotate {
	return func(context.Context, proto.Message, string, kinds.Resolve) (*kinds.Rotation, error) {
		return &kinds.Rotation{Cloud: p, NodeLabels: "digitalocean"}, nil
	}
}

// preview says what up will do when someone else's pool holds the surge pool's name: refuse
// (exit 3), naming the pool, the engine not asked to update anything.
// Promise: rotation-leaves-foreign-surge-pool
func TestAPreviewOfARotationWhoseSurgeNameIsTakenIsRefusedNamingThePool(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	resized.Rotate = rotatingIn(&pools{taken: map[string]string{"default-surge": "theirs"}})
	updates := calls(b, "update")
	o := d.Preview(ctx, resized, deploy.PreviewOptions{})
	var foreign *rotation.ForeignPoolError
	if o.Status != outcome.Blocked || !errors.As(o.Err, &foreign) || foreign.ID != "theirs" || !strings.Contains(o.Err.Error(), "default-surge") {
		t.Errorf("preview: %s (%s) %v, want blocked naming default-surge", o.Status, o.Reason, o.Err)
	}
	if calls(b, "update") != updates {
		t.Errorf("the engine updated the stack: %v", b.Calls())
	}
}

// drift, given a manifest whose edit up carries out as a rotation, says the edit is pending and
// the rotation up carries out for it, not the replacement the engine alone would make; the edit
// is the manifest's, so no drift.
func TestDriftSaysTheRotationUpCarriesOutNotTheEnginesReplacement(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	mustUp(ctx, t, d, cluster(t))
	resized := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}")
	resized.Rotate = rotatingIn(&pools{})
	o := d.Drift(ctx, resized)
	if o.Status != outcome.Done || len(o.Pending) != 1 || !strings.Contains(o.Reason, "would rotate pool default") {
		t.Errorf("drift: %s %q, want no drift, the size pending and the rotation said", o.Status, o.Reason)
	}
	// Without the rollout block up rotates nothing: drift says the edit pending, no rotation.
	replaced := cluster(t, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb")
	if o := d.Drift(ctx, replaced); o.Status != outcome.Done || len(o.Pending) != 1 || strings.Contains(o.Reason, "rotate") ||
		!strings.Contains(o.Reason, "up refuses it unless the run allows the replacement") {
		t.Errorf("drift without a rotation: %s %q, want no drift, the size pending and up's refusal said", o.Status, o.Reason)
	}
}
