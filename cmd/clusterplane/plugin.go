package main

import (
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumischema"
	"github.com/clusterplane/clusterplane/registry"
)

// servePlugin is clusterplane started by the engine as pulumi-resource-clusterplane (autostack
// makes the engine find it): it serves the plugin, so that deploying needs no other binary.
func servePlugin() {
	schema, err := pulumischema.Generate(pulumischema.Components())
	if err == nil {
		err = registry.ServePlugin(schema)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, plugin.Name+" (clusterplane):", err)
		os.Exit(1)
	}
}
