package diff_test

import (
	"bytes"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"strings"
	"testing"

	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"google.golang.org/protobuf/proto"
)

func TestARotationNamesItsStepsInOrderWithWhatThePoolsCostMeanwhile(t *testing.T) {
	hop := []string{rotation.StepCreate, rotation.StepWait, rotation.StepCordon, rotation.StepDrain, rotation.StepDelete}
	cases := []struct {
		name    string
		kind    kind
		table   *effects.Table
		cloud   string
		change  func(proto.Message)
		actions []string
		// pools are the pools each step acts on; costs what the pools cost a month meanwhile.
		pools []string
		costs []float64
		// last is in the last step's detail.
		last string
	}{
		{name: "a DigitalOcean pool gets a surge pool, drains the old one and renames the new one",
			kind: doPool, table: doPool.Effects, cloud: "digitalocean",
			change:  dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size = "s-8vcpu-16gb"; s.Rollout = rotate() }),
			actions: append(append([]string{}, hop...), rotation.StepRename),
			pools:   []string{"workers-surge", "workers-surge", "workers", "workers", "workers", "workers-surge"},
			// two s-4vcpu-8gb at $48 and two s-8vcpu-16gb at $96 while both run, then the new ones.
			costs: []float64{288, 288, 288, 288, 192, 192},
			last:  "rename pool workers-surge to workers"},
		{name: "the DigitalOcean default pool hands its tag to the new pool, so the cluster stays",
			kind: doCluster, table: doCluster.Effects, cloud: "digitalocean",
			change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
				s.DefaultNodePool.Size, s.DefaultNodePool.Rollout = "s-4vcpu-8gb", rotate()
			}),
			actions: append(append([]string{}, hop...), rotation.StepRename),
			pools:   []string{"default-surge", "default-surge", "default", "default", "default", "default-surge"},
			costs:   []float64{144, 144, 144, 144, 96, 96},
			last:    dofacts.DefaultPoolTag},
		{name: "a Civo pool that keeps its name goes through a surge pool and back",
			kind: civoPool, table: civoPool.Effects, cloud: "civo",
			change:  cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large"; s.Rollout = rotate() }),
			actions: append(append([]string{}, hop...), hop...),
			pools: []string{"workers-surge", "workers-surge", "workers", "workers", "workers",
				"workers", "workers", "workers-surge", "workers-surge", "workers-surge"},
			costs: []float64{120, 120, 120, 120, 80, 160, 160, 160, 160, 80},
			last:  "delete pool workers-surge"},
		{name: "a Civo pool renamed in the same change needs one hop",
			kind: civoPool, table: civoPool.Effects, cloud: "civo",
			change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
				s.Size, s.NodePoolName, s.Rollout = "g4s.kube.large", "apps", rotate()
			}),
			actions: hop,
			pools:   []string{"apps", "apps", "workers", "workers", "workers"},
			costs:   []float64{120, 120, 120, 120, 80},
			last:    "delete pool workers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oldInput := c.kind.Load(t)
			newInput := proto.Clone(oldInput)
			c.change(newInput)
			result, err := diff.Compare(c.table, oldInput, newInput)
			if err != nil {
				t.Fatal(err)
			}
			if result.Blocks(false) {
				t.Errorf("a rotation the manifest allows blocks: %+v", result.Changes)
			}
			if len(result.Rotations) != 1 {
				t.Fatalf("rotations = %+v, want one", result.Rotations)
			}
			result.PriceRotations(clouds.Prices(c.cloud))
			rot := result.Rotations[0]
			var actions, pools []string
			var costs []float64
			for _, s := range rot.Steps {
				actions, pools = append(actions, s.Action), append(pools, s.Pool)
				costs = append(costs, s.Cost.Min)
			}
			if strings.Join(actions, " ") != strings.Join(c.actions, " ") {
				t.Errorf("actions = %v, want %v", actions, c.actions)
			}
			if strings.Join(pools, " ") != strings.Join(c.pools, " ") {
				t.Errorf("pools = %v, want %v", pools, c.pools)
			}
			for i := range c.costs {
				if i >= len(costs) || costs[i] != c.costs[i] {
					t.Errorf("costs = %v, want %v", costs, c.costs)
					break
				}
			}
			if last := rot.Steps[len(rot.Steps)-1].Detail; !strings.Contains(last, c.last) {
				t.Errorf("last step %q, want %q in it", last, c.last)
			}
			var text bytes.Buffer
			if err := diff.WriteText(&text, result); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "rotation of pool") || !strings.Contains(text.String(), "meanwhile $") {
				t.Errorf("the text does not show the rotation with its costs:\n%s", text.String())
			}
		})
	}
}

func TestADrainStepSaysItsTimeoutAndWhatHappensToEmptyDirData(t *testing.T) {
	for _, c := range []struct {
		name    string
		rollout *sharedv1.Rollout
		want    []string
	}{
		{"the default timeout and emptyDir data kept", rotate(), []string{"within 30 minutes", "emptyDir data stops the drain"}},
		{"a timeout of its own and emptyDir data deleted",
			&sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, DrainTimeoutMinutes: 12, DeleteEmptyDirData: true},
			[]string{"within 12 minutes", "lose that data"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldInput := doPool.Load(t)
			newInput := proto.Clone(oldInput)
			dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size, s.Rollout = "s-8vcpu-16gb", c.rollout })(newInput)
			result, err := diff.Compare(doPool.Effects, oldInput, newInput)
			if err != nil || len(result.Rotations) != 1 {
				t.Fatalf("result %+v, err %v; want one rotation", result, err)
			}
			for _, s := range result.Rotations[0].Steps {
				if s.Action != rotation.StepDrain {
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(s.Detail, w) {
						t.Errorf("drain step %q, want %q in it", s.Detail, w)
					}
				}
			}
		})
	}
}

// Promise: replacing-pool-change-refused-by-default
func TestAChangeARotationCouldCarryOutNamesTheRolloutBlockWhenItIsRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		kind   kind
		table  *effects.Table
		change func(proto.Message)
		path   string
		want   string
	}{
		{"a DigitalOcean pool's size", doPool, doPool.Effects,
			dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size = "s-8vcpu-16gb" }), "spec.size", "set spec.rollout.strategy: ROTATE"},
		{"the default pool's size on a protected cluster", doCluster, doCluster.Effects,
			dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Size = "s-4vcpu-8gb" }), "spec.defaultNodePool.size",
			"set spec.defaultNodePool.rollout.strategy: ROTATE"},
		{"a Civo pool's size", civoPool, civoPool.Effects,
			cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large" }), "spec.size", "set spec.rollout.strategy: ROTATE"},
		{"a DigitalOcean pool's size beyond maxSurge", doPool, doPool.Effects,
			dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
				s.Size, s.Rollout = "s-8vcpu-16gb", &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, MaxSurge: 1}
			}), "spec.size", "more than its maxSurge 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldInput := c.kind.Load(t)
			newInput := proto.Clone(oldInput)
			c.change(newInput)
			result, err := diff.Compare(c.table, oldInput, newInput)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range result.Changes {
				if ch.Path == c.path && (!ch.Effect.Blocks() || !strings.Contains(ch.Reason, c.want)) {
					t.Errorf("%s: %s, %q; want it blocked, with %q", ch.Path, ch.Effect, ch.Reason, c.want)
				}
			}
			if len(result.Rotations) != 0 {
				t.Errorf("rotations = %+v, want none", result.Rotations)
			}
		})
	}
}
