package registry

import (
	"runtime/debug"

	"github.com/clusterplane/clusterplane/pkg/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumischema"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// ServePlugin runs the clusterplane plugin (the components and the custom resources) serving
// schema, for the engine that started the process: pulumi-resource-clusterplane does, and so
// does clusterplane when the engine starts it under that name.
func ServePlugin(schema []byte) error {
	return provider.Main(pulumischema.PackageName, func(host *provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return componentprovider.New(host.EngineConn(), PluginVersion(), schema, Components(), Customs()...), nil
	})
}

// PluginVersion is the module version the binary was built from (go install ...@v0.3.0), or
// 0.0.0 for a build from a checkout.
func PluginVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; len(v) > 1 && v[0] == 'v' && v != "(devel)" {
			return v[1:]
		}
	}
	return "0.0.0"
}
