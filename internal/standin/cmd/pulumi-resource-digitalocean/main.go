// Command pulumi-resource-digitalocean is the digitalocean provider plugin stand-in for offline end-to-end tests:
// see package standin for what it proves and what it cannot. It keeps its resources in the
// directory named by CLUSTERPLANE_STANDIN_CLOUD.
package main

import (
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/internal/standin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	err := provider.Main("digitalocean", func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return standin.FromEnv("digitalocean")
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
