package component

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// ClusterIDOutput is the cluster stack's output a pool's `valueFrom` cluster reads by default.
const ClusterIDOutput = "cluster_id"

// WithClusterID makes id stand in for a pool's spec.cluster: the id of the cluster the pool joins.
func WithClusterID[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](id pulumi.StringInput) O {
	return WithInput[O](kindfield.SpecCluster, id)
}

// Cluster returns the id of the cluster a pool joins: WithClusterID's, else spec.cluster's literal
// or stack reference (its ClusterIDOutput unless it names another). child apply to a stack
// reference it creates.
func (s *Settings[P, C]) Cluster(ctx *pulumi.Context, name string, spec interface {
	GetCluster() *sharedv1.StringValueOrRef
}, child []pulumi.ResourceOption) (pulumi.StringOutput, error) {
	return s.Input(ctx, name, kindfield.SpecCluster, spec.GetCluster(), ClusterIDOutput, child...)
}

// Sizing is what a pool's spec says of its size: a node count, or autoscaling between bounds.
type Sizing interface {
	GetNodeCount() int32
	GetAutoScale() bool
	GetMinNodes() int32
	GetMaxNodes() int32
}

// PoolSize returns a pool's node count, autoscaling and bounds as a provider's pool arguments take
// them: the count only when the spec sets one, and autoscaling and its bounds only when the pool
// autoscales, as a provider that rejects bounds on a fixed-size pool needs. A nil input leaves
// the argument unset.
func PoolSize(spec Sizing) (count pulumi.IntPtrInput, autoScale pulumi.BoolPtrInput, minNodes, maxNodes pulumi.IntPtrInput) {
	if spec.GetNodeCount() > 0 {
		count = pulumi.Int(int(spec.GetNodeCount()))
	}
	if spec.GetAutoScale() {
		autoScale = pulumi.Bool(true)
		minNodes = pulumi.Int(int(spec.GetMinNodes()))
		maxNodes = pulumi.Int(int(spec.GetMaxNodes()))
	}
	return count, autoScale, minNodes, maxNodes
}

// Taints returns a spec's taints as a provider's taint list A, an element each made by arg from
// the taint's key, value and effect name (e.g. "NoSchedule"). It is never nil, so a pool without
// taints sends an empty list, which clears taints a previous deployment set.
func Taints[A ~[]E, E any](taints []*sharedv1.Taint, arg func(key, value, effect string) E) A {
	out := A{}
	for _, t := range taints {
		out = append(out, arg(t.GetKey(), t.GetValue(), t.GetEffect().String()))
	}
	return out
}
