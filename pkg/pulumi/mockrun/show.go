package mockrun

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Show runs body under mocks, as Run does, and hands what it registered to show, which prints
// what a godoc example means its reader to see. It is written for Example functions, whose
// printed lines Go compares with their "// Output:" comment, so that each example holds only its
// program and its own lines of output.
//
// When the run fails, Show prints the error instead and does not call show: the example then
// fails with the reason in view, not on an empty result. An error of body itself is printed in
// body's own words, as a program's user would read it, not in the list Pulumi wraps it in.
func Show(body pulumi.RunFunc, opts Options, show func(*Result)) {
	var bodyErr error
	p, err := Run(func(ctx *pulumi.Context) error {
		bodyErr = body(ctx)
		return bodyErr
	}, opts)
	switch {
	case bodyErr != nil:
		fmt.Println(bodyErr)
	case err != nil:
		fmt.Println(err)
	default:
		show(p)
	}
}
