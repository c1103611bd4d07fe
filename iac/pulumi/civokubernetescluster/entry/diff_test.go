package entry_test

import (
	"testing"

	ccv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"google.golang.org/protobuf/proto"
)

// cc is a typed edit of the kind's spec.
var cc = diffpairs.Spec[*ccv1.CivoKubernetesClusterSpec]

// Every row of the kind's effects table has an OLD/NEW pair here, which diff must tell right.
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), pairs)
}

// unprotected turns deletion protection off, in OLD and NEW alike.
var unprotected = cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DeletionProtection = proto.Bool(false) })

// pairs are the Civo clusters' OLD/NEW pairs: both start from examples/civokubernetescluster/minimal.yaml.
var pairs = []diffpairs.Pair{

	// Civo clusters: nothing replaces; what cannot change is refused.
	{Name: "renaming a Civo cluster updates it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ClusterName = "dev-fra1-b" }),
		Path:   "spec.clusterName", Effect: effects.Update},
	{Name: "moving a Civo cluster to another region is refused", Edit: unprotected,
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Region = "lon1" }),
		Path:   "spec.region", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "upgrading a Civo cluster updates it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.KubernetesVersion = "1.31.2-k3s1" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Update},
	{Name: "lowering a Civo cluster's version is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.KubernetesVersion = "1.29.9-k3s1" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "changing a Civo cluster's type is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.ClusterType, s.KubernetesVersion = ccv1.CivoKubernetesClusterType_talos, "talos-v1.5.0"
		}),
		Path: "spec.clusterType", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "changing a Civo cluster's CNI is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Cni = ccv1.CivoKubernetesClusterCni_cilium }),
		Path:   "spec.cni", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "adding Civo applications is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Applications = []string{"metrics-server"} }),
		Path:   "spec.applications", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "moving a Civo cluster to another network is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.Network = sharedv1.StringValue("0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5")
		}),
		Path: "spec.network", Effect: effects.Refused, Refusal: effects.FailsAtApply, Exit: exitcode.Blocked},
	{Name: "removing a Civo cluster's network changes nothing: the provider keeps it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Network = nil }),
		Path:   "spec.network", Effect: effects.Refused, Refusal: effects.Kept, Exit: exitcode.Blocked},
	{Name: "putting a Civo cluster behind a given firewall updates it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.Firewall = sharedv1.StringValue("5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f")
		}),
		Path: "spec.firewall", Effect: effects.Update},
	{Name: "the API server's allowed CIDRs update the firewall",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ApiServerAllowedCidrs = []string{"203.0.113.0/24"} }),
		Path:   "spec.apiServerAllowedCidrs", Effect: effects.Update},
	{Name: "resizing a Civo default pool is refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.Size = "g4s.kube.large" }),
		Path:   "spec.defaultNodePool.size", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "scaling a Civo default pool updates it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		Path:   "spec.defaultNodePool.nodeCount", Effect: effects.Update},
	{Name: "Civo default pool labels are refused by the spec's rules already",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.Labels = map[string]string{"a": "b"} }),
		Path:   "spec.defaultNodePool.labels", Invalid: true, Exit: exitcode.Invalid},
	{Name: "Civo default pool taints are refused by the spec's rules already",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "a", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		Path: "spec.defaultNodePool.taints", Invalid: true, Exit: exitcode.Invalid},
	{Name: "a Civo default pool's public IPs are refused",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.PublicIpNodePool = true }),
		Path:   "spec.defaultNodePool.publicIpNodePool", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "Civo cluster tags update it",
		Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Tags = []string{"team-platform"} }),
		Path:   "spec.tags", Effect: effects.Update},
	{Name: "turning a Civo cluster's protection off updates the state only", Change: unprotected,
		Path: "spec.deletionProtection", Effect: effects.Update},
	{Name: "renaming an unprotected Civo cluster's manifest alone is refused: Civo refuses a second cluster of the name",
		Edit: unprotected, Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" }),
		Path: "metadata.name", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "renaming an unprotected Civo cluster's manifest and its cluster name replaces everything",
		Edit: unprotected, Change: func(in proto.Message) {
			diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" })(in)
			in.(*ccv1.CivoKubernetesClusterStackInput).Target.Spec.ClusterName = "dev-fra1-b"
		},
		Path: "metadata.name", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "a Civo cluster's new metadata env is refused on its stack",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Env = "dev" }),
		Path:   "metadata.env", Effect: effects.Refused, Refusal: effects.Identity, Exit: exitcode.Blocked},
}
