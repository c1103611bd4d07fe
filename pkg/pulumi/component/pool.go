package component

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

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
