package entry_test

import (
	"testing"

	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"google.golang.org/protobuf/proto"
)

// cp is a typed edit of the kind's spec.
var cp = diffpairs.Spec[*cpv1.CivoKubernetesNodePoolSpec]

// Every row of the kind's effects table has an OLD/NEW pair here, which diff must tell right.
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), pairs)
}

// pairs are the Civo node pools' OLD/NEW pairs: both start from examples/civokubernetesnodepool/minimal.yaml.
var pairs = []diffpairs.Pair{
	{Name: "allowing a Civo pool to rotate sends nothing",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Rollout = diffpairs.Rotate() }),
		Path:   "spec.rollout", Effect: effects.Ignored},
	{Name: "resizing a Civo pool that allows rotation rotates it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large"; s.Rollout = diffpairs.Rotate() }),
		Path:   "spec.size", Effect: effects.Rotate},
	{Name: "moving a Civo pool that allows rotation to another region is still refused",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
			s.Region = "lon1"
			s.Rollout = diffpairs.Rotate()
		}),
		Path: "spec.region", Effect: effects.Refused, Exit: exitcode.Blocked},

	// Civo node pools.
	{Name: "renaming a Civo pool replaces it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodePoolName = "apps" }),
		Path:   "spec.nodePoolName", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "moving a Civo pool to another cluster replaces it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Cluster = sharedv1.StringValue("other-cluster") }),
		Path:   "spec.cluster", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "moving a Civo pool to another region is refused: its cluster stays where it is",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Region = "lon1" }),
		Path:   "spec.region", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "resizing a Civo pool replaces it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large" }),
		Path:   "spec.size", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "scaling a Civo pool updates it in place",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 5 }),
		Path:   "spec.nodeCount", Effect: effects.Update},
	{Name: "an autoscaled Civo pool's count is left to the autoscaler",
		Edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 3 }),
		Path:   "spec.nodeCount", Effect: effects.Ignored},
	{Name: "autoscaling a Civo pool changes only the module's handling",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Path:   "spec.autoScale", Effect: effects.Update},
	{Name: "a Civo pool's bounds are not sent",
		Edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.MaxNodes = 6 }),
		Path:   "spec.maxNodes", Effect: effects.Ignored},
	{Name: "a Civo pool's lower bound is not sent",
		Edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.MinNodes = 2 }),
		Path:   "spec.minNodes", Effect: effects.Ignored},
	{Name: "a Civo pool's labels update it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		Path:   "spec.labels", Effect: effects.Update},
	{Name: "clearing a Civo pool's labels updates it",
		Edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = nil }),
		Path:   "spec.labels", Effect: effects.Update},
	{Name: "clearing a Civo pool's taints updates it",
		Edit: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Taints = nil }),
		Path:   "spec.taints", Effect: effects.Update},
	{Name: "a Civo pool's taints update it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		Path: "spec.taints", Effect: effects.Update},
	{Name: "a Civo pool's public IPs replace it",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.PublicIpNodePool = true }),
		Path:   "spec.publicIpNodePool", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "a Civo pool's wait timeout bounds later changes only",
		Change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.WaitTimeoutMinutes = 40 }),
		Path:   "spec.waitTimeoutMinutes", Effect: effects.Ignored},
	{Name: "a Civo pool's metadata labels are not sent: Civo pools have no tags",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Labels = map[string]string{"team": "x"} }),
		Path:   "metadata.labels", Effect: effects.Ignored},
	{Name: "renaming a Civo pool's manifest alone is refused: Civo refuses a second pool of the name",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" }),
		Path:   "metadata.name", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "renaming a Civo pool's manifest and its pool name replaces the pool",
		Change: func(in proto.Message) {
			diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" })(in)
			in.(*cpv1.CivoKubernetesNodePoolStackInput).Target.Spec.NodePoolName = "apps"
		},
		Path: "metadata.name", Effect: effects.Replace, Exit: exitcode.Blocked},
}
