package registry

import (
	"github.com/clusterplane/clusterplane/pkg/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumischema"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// ServePlugin runs the clusterplane plugin (the components and the custom resources) of version
// serving schema, for the engine that started the process: pulumi-resource-clusterplane does,
// and so does clusterplane when the engine starts it under that name.
func ServePlugin(version string, schema []byte) error {
	return provider.Main(pulumischema.PackageName, func(host *provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return componentprovider.New(host.EngineConn(), version, schema, Components(), Customs()...), nil
	})
}
