// Package importing tells a stack program that it runs to import what the cloud already holds
// (clusterplane's adopt), not to deploy its manifest over what the stack recorded.
//
// A module refuses some clusters it finds in the cloud (a DigitalOcean cluster none of whose pools
// carries the default pool's tag) because deploying over the stack's record would fail; an
// import is how such a cluster comes under a stack, and the provider's import tags the pool
// itself. The deploy layer sets it (Carry) on the program's context for adopt's runs; a program's
// look-ups read it (Of). A context that carries nothing, as in every other run, a Pulumi user's
// own program and a run under mocks, is no import.
package importing

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// key is the context key of the mark.
type key struct{}

// Carry is ctx marked as a run that imports. A value on the Go context handed to Pulumi's
// Automation API does not reach the program's context: the program itself must be run with the
// one Carry returns.
func Carry(ctx *pulumi.Context) *pulumi.Context {
	return ctx.WithValue(key{}, true)
}

// Of tells whether ctx (a program's ctx.Context()) is marked as a run that imports.
func Of(ctx context.Context) bool {
	on, _ := ctx.Value(key{}).(bool)
	return on
}
