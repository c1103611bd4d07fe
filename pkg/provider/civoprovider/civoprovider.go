// Package civoprovider creates the explicit Civo provider a stack deploys with, so that
// credentials come from the stack input (or the environment) and are always Pulumi secrets.
package civoprovider

import (
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// New creates a Civo provider named name for region. Civo node pools have no region argument,
// so the provider's region is the one every resource it creates lands in.
func New(ctx *pulumi.Context, name string, cfg *civov1.CivoProviderConfig, region civov1.CivoRegion,
	opts ...pulumi.ResourceOption) (*civo.Provider, error) {
	args := &civo.ProviderArgs{Region: pulumi.String(region.String())}
	if token := provider.Setting(cfg.GetApiToken(), provider.CivoTokenEnv); token != "" {
		args.Token = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
	}
	if url := provider.Setting(cfg.GetApiUrl(), provider.CivoAPIURLEnv); url != "" {
		args.ApiEndpoint = pulumi.String(url)
	}
	p, err := civo.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create civo provider")
}
