// Package upread carries what an up just read from the cloud to the stack program that runs
// right after it, so that the program takes it from there instead of asking the cloud again.
//
// The deploy layer sets it (Carry) on the program's context only for the preview that compares
// the state such an up wrote with the manifest; a program's own look-ups read it (Of). A context
// that carries nothing, as in every other run, a Pulumi user's own program and a run under
// mocks, leaves each look-up asking the cloud as it always does.
package upread

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Resource is one resource of a stack's state: its type and its outputs, secret ones left out.
type Resource struct {
	Type    string
	Outputs map[string]any
}

// Read is a stack's resources as the up that just ran read them from the cloud (its refresh)
// and wrote them, its own changes included.
type Read []Resource

// key is the context key of a carried Read.
type key struct{}

// Carry is ctx carrying read, for the stack program run with it. A value on the Go context
// handed to Pulumi's Automation API does not reach the program's context: the program itself
// must be run with the one Carry returns.
func Carry(ctx *pulumi.Context, read Read) *pulumi.Context {
	return ctx.WithValue(key{}, read)
}

// Of is the Read ctx carries (a program's ctx.Context()), nil when it carries none.
func Of(ctx context.Context) Read {
	read, _ := ctx.Value(key{}).(Read)
	return read
}

// Named is the outputs of the resource of type typ whose "name" output is name, and whether
// read holds one.
func (read Read) Named(typ, name string) (map[string]any, bool) {
	for _, r := range read {
		if r.Type == typ && r.Outputs["name"] == name {
			return r.Outputs, true
		}
	}
	return nil, false
}
