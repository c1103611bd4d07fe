package main

import (
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
)

// servePlugin is clusterplane started by the engine as pulumi-resource-clusterplane (autostack
// makes the engine find it): it serves the plugin, so that deploying needs no other binary.
func servePlugin(list kinds.List) {
	schema, err := pulumischema.Generate(list.Schema())
	if err == nil {
		err = componentprovider.Serve(schema, list.Components(), list.Customs()...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, plugin.Name+" (clusterplane):", err)
		os.Exit(1)
	}
}
