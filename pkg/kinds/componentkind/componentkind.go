// Package componentkind assembles a kind from its module the way all four kinds are assembled:
// the stack program around the module's Resources and the kind's effects table, and the kind
// whole around that program and the module's component. A kind's entry/ package then sets only
// what is its own (look-up, rotation, cost, nodes).
package componentkind

import (
	"context"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Program is the stack program named name (its binary's and Pulumi project's name) of stack
// input T on the cloud of driver, deploying with resources and diffing with the effects table
// that table returns, priced by its driver. The table is named after the kind here, from the
// stack input's target message, so that a kind's name is written once, in its proto; then
// effects.Build completes it.
func Program[T any, I interface {
	*T
	proto.Message
}](name string, driver cloud.Driver, resources func(*pulumi.Context, I) error, table func() *effects.Table) program.Program[I] {
	p := program.Program[I]{
		Name:      name,
		NewInput:  func() I { return I(new(T)) },
		Resources: resources,
		Driver:    driver,
	}
	p.Effects = func() *effects.Table {
		t := table()
		t.Name = p.Kind()
		return effects.Build(t)
	}
	return p
}

// Kind is the kind of program p whose component newFn (the module's New) constructs, of the type
// token its manifest kind names (plugin.ComponentType), with what is the kind's own given in own:
// its short name and, where it has them, its look-up, rotation, cost, nodes and custom resources.
func Kind[I proto.Message, O ~func(*component.Settings[P, C]), P pulumi.ProviderResource, C proto.Message,
	S proto.Message, R pulumi.ComponentResource](p program.Program[I],
	newFn func(*pulumi.Context, string, S, ...O) (R, error), own kinds.Kind) kinds.Kind {
	k := kinds.Of(p, own)
	k.Component = componentprovider.ComponentOf(plugin.ComponentType(k.Name), p.NewInput, newFn)
	return k
}

// PoolRotate is the Rotate of a node pool kind of stack input I: rotate is given the stack input
// and the id of the pool's cluster, which PoolCluster reads from the cluster its spec names (that
// stack's component.ClusterIDOutput unless the ref names another output). The kind then writes
// only how its cloud rotates a pool of that cluster.
func PoolRotate[I component.StackInput[T, S, C], T component.Target[S], S poolSpec, C proto.Message](
	rotate func(ctx context.Context, input I, cluster string) (*kinds.Rotation, error)) kinds.Rotate {
	return func(ctx context.Context, in proto.Message, _ string, resolve kinds.Resolve) (*kinds.Rotation, error) {
		input := in.(I)
		cluster, err := PoolCluster(ctx, resolve, input.GetTarget().GetSpec().GetCluster(), component.ClusterIDOutput)
		if err != nil {
			return nil, err
		}
		return rotate(ctx, input, cluster)
	}
}

// poolSpec is what PoolRotate reads of a node pool's spec: its cluster's ref.
type poolSpec interface {
	proto.Message
	GetCluster() *sharedv1.StringValueOrRef
}

// PoolCluster is the id of the cluster a node pool's ref names, read through resolve (from its
// stack's output unless ref names another), which a pool's rotation cannot do without.
func PoolCluster(ctx context.Context, resolve kinds.Resolve, ref *sharedv1.StringValueOrRef, output string) (string, error) {
	cluster, err := resolve(ctx, ref, output)
	if err != nil {
		return "", err
	}
	if cluster == "" {
		return "", errors.Errorf("the pool's cluster id is not known (its cluster's stack has no %s output)", output)
	}
	return cluster, nil
}
