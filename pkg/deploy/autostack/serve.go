package autostack

import (
	"path/filepath"

	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	"github.com/pkg/errors"
)

// StartedAsPlugin tells whether this process was started by the engine as the plugin: New links
// the clusterplane binary under the plugin's name (providePlugin), so that deploying needs no
// other binary, and the engine then starts it under that name.
func StartedAsPlugin(argv0 string) bool {
	return filepath.Base(argv0) == plugin.Name
}

// ServePlugin serves the kinds as the plugin does, with the package schema made from them, until
// the engine ends it.
func ServePlugin(list kinds.List) error {
	schema, err := pulumischema.Generate(list.Schema())
	if err == nil {
		err = componentprovider.Serve(schema, list.Components(), list.Customs()...)
	}
	return errors.Wrap(err, plugin.Name+" (clusterplane)")
}
