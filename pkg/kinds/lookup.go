package kinds

import (
	"context"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"google.golang.org/protobuf/proto"
)

// clusterSpec is what a cluster kind's look-up reads of its spec.
type clusterSpec interface {
	proto.Message
	GetRegion() string
	GetClusterName() string
}

// poolSpec is what a node pool kind's look-up reads of its spec: its name and its cluster's ref.
type poolSpec interface {
	proto.Message
	GetNodePoolName() string
	GetCluster() *sharedv1.StringValueOrRef
}

// ClusterLookup is the Lookup of a cluster kind of stack input I: the clusters of the manifest's
// clusterName in its region: list gives the clusters of that name in that region (their ids and tags),
// asked as the stack input's provider config says. The kind then writes only how its cloud lists
// them.
func ClusterLookup[I component.StackInput[T, S, C], T component.Target[S], S clusterSpec, C proto.Message](
	list func(ctx context.Context, in I, region, name string) ([]Listed, error)) Lookup {
	return func(ctx context.Context, in proto.Message, _ Resolve) (Found, error) {
		input := in.(I)
		spec := input.GetTarget().GetSpec()
		region, name := spec.GetRegion(), spec.GetClusterName()
		search := Search{Type: "cluster", Name: name, In: region, Where: "region " + region}
		return search.Look(func() ([]Listed, error) { return list(ctx, input, region, name) })
	}
}

// PoolLookup is the Lookup of a node pool kind of stack input I: the pools of the manifest's
// nodePoolName in the cluster its spec's cluster names, read through resolve (from that stack's
// component.ClusterIDOutput unless the ref names another output), as LookForPool does: list
// gives the pools of that name in that cluster (their ids and tags).
func PoolLookup[I component.StackInput[T, S, C], T component.Target[S], S poolSpec, C proto.Message](
	list func(ctx context.Context, in I, cluster, name string) ([]Listed, error)) Lookup {
	return func(ctx context.Context, in proto.Message, resolve Resolve) (Found, error) {
		input := in.(I)
		spec := input.GetTarget().GetSpec()
		search := Search{Name: spec.GetNodePoolName()}
		return search.LookForPool(ctx, resolve, spec.GetCluster(), component.ClusterIDOutput, func(cluster string) ([]Listed, error) {
			return list(ctx, input, cluster, search.Name)
		})
	}
}
