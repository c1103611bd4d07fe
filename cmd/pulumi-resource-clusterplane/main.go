// Command pulumi-resource-clusterplane is the clusterplane Pulumi plugin: it serves the four
// kinds as components (clusterplane:civo:KubernetesCluster, ...) to Pulumi programs in
// TypeScript, Python, YAML and the other Pulumi languages, and manages Civo node pools
// (clusterplane:civo:NodePool) for every program, Go included. The engine starts it; it is not
// run by hand. Build it from a checkout onto the PATH with
//
//	go build -o $HOME/go/bin/pulumi-resource-clusterplane ./cmd/pulumi-resource-clusterplane
package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
)

// schema is written by `make protos` from the API's descriptors (pkg/pulumi/pulumischema).
//
//go:embed schema.json
var schema []byte

func main() {
	kinds := registry.Kinds()
	if err := componentprovider.Serve(schema, kinds.Components(), kinds.Customs()...); err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-resource-clusterplane:", err)
		os.Exit(1)
	}
}
