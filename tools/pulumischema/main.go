// Command pulumischema writes the Pulumi package schema of the clusterplane component provider to
// the file given as its argument. `make protos` runs it, so `make check-generated` fails when a
// proto changes and the committed schema does not.
package main

import (
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pulumischema FILE")
		os.Exit(2)
	}
	schema, err := pulumischema.Generate(registry.Kinds().Schema())
	if err == nil {
		err = os.WriteFile(os.Args[1], schema, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pulumischema:", err)
		os.Exit(1)
	}
}
