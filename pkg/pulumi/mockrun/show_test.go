package mockrun_test

import (
	"errors"
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// A program's example prints only what its reader should see of the run: here the thing it
// registered, with the size it was given and the id the mocks answer for it.
func ExampleShow() {
	program := func(ctx *pulumi.Context) error {
		var t thing
		return ctx.RegisterResource(thingType, "web", pulumi.Map{"size": pulumi.String("large")}, &t)
	}
	mockrun.Show(program, mockrun.Options{}, func(p *mockrun.Result) {
		web, _ := p.Find(thingType, "web")
		fmt.Println(web.Type, web.Name, "size:", web.Inputs["size"])
	})
	// Output:
	// test:index:Thing web size: large
}

// A program that fails prints its error, and nothing of what show would have printed.
func ExampleShow_failingProgram() {
	program := func(ctx *pulumi.Context) error {
		return errors.New("the spec names no region")
	}
	mockrun.Show(program, mockrun.Options{}, func(p *mockrun.Result) {
		fmt.Println("registered", len(p.Resources), "resources")
	})
	// Output:
	// the spec names no region
}

// A run that fails outside the program, here on a stack reference to a stack the mocks do not
// know, prints the run's error.
func ExampleShow_unknownStack() {
	program := func(ctx *pulumi.Context) error {
		_, err := pulumi.NewStackReference(ctx, "network", &pulumi.StackReferenceArgs{
			Name: pulumi.String("organization/network/prod"),
		})
		return err
	}
	mockrun.Show(program, mockrun.Options{}, func(p *mockrun.Result) {
		fmt.Println("registered", len(p.Resources), "resources")
	})
	// Output:
	// waiting for RPCs: stack "organization/network/prod" not found
}
