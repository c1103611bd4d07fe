package registry

import (
	"github.com/clusterplane/clusterplane/pkg/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumischema"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// ServePlugin runs the clusterplane plugin (the components and the custom resources) serving
// schema, for the engine that started the process: pulumi-resource-clusterplane does, and so
// does clusterplane when the engine starts it under that name.
func ServePlugin(schema []byte) error {
	schema, err := pulumischema.Stamp(schema)
	if err != nil {
		return err
	}
	return provider.Main(plugin.Package, func(host *provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return componentprovider.New(host.EngineConn(), plugin.Version(), schema, Components(), Customs()...), nil
	})
}
