package diff_test

import (
	"strings"
	"testing"

	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"google.golang.org/protobuf/proto"
)

// A rotation's wait and drain say their counts as a person would: "within 1 minute", "its 1 node
// is Ready", and the plural from 2 on.
func TestARotationsWaitAndDrainSayOneMinuteAndOneNodeInTheSingular(t *testing.T) {
	for _, c := range []struct {
		name         string
		nodes, ready int32
		drain        int32
		wait, drains string // in the wait step's and the drain step's detail
	}{
		{"one node within one minute each", 1, 1, 1,
			"wait until its 1 node is Ready in the cluster, within 1 minute", "within 1 minute;"},
		{"two nodes within two minutes each", 2, 2, 2,
			"wait until its 2 nodes are Ready in the cluster, within 2 minutes", "within 2 minutes;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldInput := doPool.Load(t)
			newInput := proto.Clone(oldInput)
			dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
				s.Size, s.NodeCount, s.AutoScale = "s-8vcpu-16gb", c.nodes, false
				s.Rollout = &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, DrainTimeoutMinutes: c.drain,
					ReadyTimeoutMinutes: c.ready, MaxSurge: 10}
			})(newInput)
			result, err := diff.Compare(doPool.Effects, oldInput, newInput)
			if err != nil || len(result.Rotations) != 1 {
				t.Fatalf("result %+v, err %v; want one rotation", result, err)
			}
			said := map[string]string{}
			for _, s := range result.Rotations[0].Steps {
				said[s.Action] = s.Detail
			}
			if !strings.Contains(said[rotation.StepWait], c.wait) {
				t.Errorf("the wait step says %q, want %q in it", said[rotation.StepWait], c.wait)
			}
			if !strings.Contains(said[rotation.StepDrain], c.drains) {
				t.Errorf("the drain step says %q, want %q in it", said[rotation.StepDrain], c.drains)
			}
		})
	}
}
