// Package componentkind assembles a kind from its module the way all four kinds are assembled:
// the stack program around the module's Resources and the kind's effects table, and the kind
// whole around that program and the module's component. A kind's entry/ package then sets only
// what is its own (look-up, rotation, cost, nodes).
package componentkind

import (
	"context"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Program is the stack program named name (its binary's and Pulumi project's name) of stack
// input T, deploying with resources and diffing with effects.
func Program[T any, I interface {
	*T
	proto.Message
}](name string, resources func(*pulumi.Context, I) error, effects func() *effects.Table) program.Program[I] {
	return program.Program[I]{
		Name:      name,
		NewInput:  func() I { return I(new(T)) },
		Resources: resources,
		Effects:   effects,
	}
}

// Kind is the kind of program p, known in short as short, whose component of type token newFn
// (the module's New) constructs.
func Kind[I proto.Message, O ~func(*component.Settings[P, C]), P pulumi.ProviderResource, C proto.Message,
	S proto.Message, R pulumi.ComponentResource](p program.Program[I], short, token string,
	newFn func(*pulumi.Context, string, S, ...O) (R, error)) kinds.Kind {
	k := kinds.Of(p)
	k.Short = short
	k.Component = componentprovider.ComponentOf(token, p.NewInput, newFn)
	return k
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
