package entry_test

import (
	"testing"

	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// dp is a typed edit of the kind's spec.
var dp = diffpairs.Spec[*dpv1.DigitalOceanKubernetesNodePoolSpec]

// Every row of the kind's effects table has an OLD/NEW pair here, which diff must tell right.
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), pairs)
}

// pairs are the DigitalOcean node pools' OLD/NEW pairs: both start from examples/digitaloceankubernetesnodepool/minimal.yaml.
var pairs = []diffpairs.Pair{

	// DigitalOcean node pools.
	{Name: "renaming a DigitalOcean pool updates it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodePoolName = "apps" }),
		Path:   "spec.nodePoolName", Effect: effects.Update},
	{Name: "moving a DigitalOcean pool to another cluster replaces it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Cluster = sharedv1.StringValue("other-cluster") }),
		Path:   "spec.cluster", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "resizing a DigitalOcean pool replaces the pool",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size = "s-8vcpu-16gb" }),
		Path:   "spec.size", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "allowing a DigitalOcean pool to rotate sends nothing",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Rollout = diffpairs.Rotate() }),
		Path:   "spec.rollout", Effect: effects.Ignored},
	{Name: "resizing a DigitalOcean pool that allows rotation rotates it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Size = "s-8vcpu-16gb"
			s.Rollout = diffpairs.Rotate()
		}),
		Path: "spec.size", Effect: effects.Rotate},
	{Name: "a rotation needing more surge nodes than maxSurge allows stays a replacement",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Size, s.Rollout = "s-8vcpu-16gb", &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, MaxSurge: 1}
		}),
		Path: "spec.size", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "a rollout of strategy NONE keeps the replacement refused",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Size, s.Rollout = "s-8vcpu-16gb", &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_NONE}
		}),
		Path: "spec.size", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "removing every label of a DigitalOcean pool that allows rotation rotates it",
		Edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "batch"} }),
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = nil; s.Rollout = diffpairs.Rotate() }),
		Path:   "spec.labels", Effect: effects.Rotate},
	{Name: "scaling a DigitalOcean pool updates it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodeCount = 4 }),
		Path:   "spec.nodeCount", Effect: effects.Update},
	{Name: "an autoscaled DigitalOcean pool's count is left to the autoscaler",
		Edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodeCount = 4 }),
		Path:   "spec.nodeCount", Effect: effects.Ignored},
	{Name: "autoscaling a DigitalOcean pool updates it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Path:   "spec.autoScale", Effect: effects.Update},
	{Name: "a DigitalOcean pool's bounds update it",
		Edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.MinNodes = 2 }),
		Path:   "spec.minNodes", Effect: effects.Update},
	{Name: "a DigitalOcean pool's upper bound updates it",
		Edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.MaxNodes = 6 }),
		Path:   "spec.maxNodes", Effect: effects.Update},
	{Name: "a DigitalOcean pool's labels update it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		Path:   "spec.labels", Effect: effects.Update},
	{Name: "clearing a DigitalOcean pool's labels is refused: an empty map is never sent",
		Edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = nil }),
		Path:   "spec.labels", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "a DigitalOcean pool's taints update it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		Path: "spec.taints", Effect: effects.Update},
	{Name: "a DigitalOcean pool's tags update it",
		Change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Tags = []string{"apps"} }),
		Path:   "spec.tags", Effect: effects.Update},
	{Name: "renaming a DigitalOcean pool's manifest replaces the pool",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" }),
		Path:   "metadata.name", Effect: effects.Replace, Exit: exitcode.Blocked},
}
