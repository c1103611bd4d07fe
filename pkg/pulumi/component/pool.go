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

// PoolOptions returns the options every pool kind's New takes, made as the kind's own option
// type O: Common's four, then WithClusterID, so a pool kind's module declares all five in one line.
func PoolOptions[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message]() (
	func(*sharedv1.CloudResourceMetadata) O, func(P) O, func(C) O, func(...pulumi.ResourceOption) O, func(pulumi.StringInput) O) {
	return WithMetadata[O], WithProvider[O], WithProviderConfig[O], WithResourceOptions[O], WithClusterID[O]
}

// JoinCluster is a pool kind's Build: it reads the id of the cluster the pool joins (Cluster),
// lets pool create the pool there with the provider p among its options, and lets set give the
// component its outputs from the pool, so that a pool kind writes only its pool. The cluster's
// stack reference, when there is one, is created without p.
func JoinCluster[P pulumi.ProviderResource, C proto.Message, S interface {
	proto.Message
	GetCluster() *sharedv1.StringValueOrRef
}, R pulumi.ComponentResource, T any](
	pool func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, clusterID pulumi.StringOutput, opts []pulumi.ResourceOption) (T, error),
	set func(comp R, pool T),
) func(*pulumi.Context, string, *Settings[P, C], S, R, []pulumi.ResourceOption, P) error {
	return func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, comp R, child []pulumi.ResourceOption, p P) error {
		clusterID, err := s.Cluster(ctx, name, spec, child)
		if err != nil {
			return err
		}
		// A new slice: child is the caller's, and appending to it could write into its array.
		created, err := pool(ctx, name, s, spec, clusterID, append(append([]pulumi.ResourceOption{}, child...), pulumi.Provider(p)))
		if err != nil {
			return err
		}
		set(comp, created)
		return nil
	}
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
