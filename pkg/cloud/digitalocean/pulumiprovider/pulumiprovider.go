// Package pulumiprovider creates the explicit DigitalOcean provider a stack deploys with, so
// that credentials come from the stack input (or the environment) and are always Pulumi secrets.
package pulumiprovider

import (
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	digitaloceandriver "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// New creates a DigitalOcean provider named name.
func New(ctx *pulumi.Context, name string, cfg *digitaloceanv1.DigitalOceanProviderConfig,
	opts ...pulumi.ResourceOption) (*digitalocean.Provider, error) {
	args := &digitalocean.ProviderArgs{}
	token, url, err := digitaloceandriver.Env.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
	if err != nil {
		return nil, errors.Wrap(err, "create digitalocean provider")
	}
	if token != "" {
		args.Token = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
	}
	if url != "" {
		args.ApiEndpoint = pulumi.String(url)
	}
	p, err := digitalocean.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create digitalocean provider")
}
