// Package provider creates the explicit Civo and DigitalOcean providers a stack deploys with, so
// that credentials come from the stack input (or the environment) and are always Pulumi secrets.
package provider

import (
	"os"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Environment variables that empty provider-config fields fall back to.
const (
	CivoTokenEnv          = "CIVO_TOKEN"
	CivoAPIURLEnv         = "CIVO_API_URL"
	DigitalOceanTokenEnv  = "DIGITALOCEAN_TOKEN"
	DigitalOceanAPIURLEnv = "DIGITALOCEAN_API_URL"
)

// NewCivo creates a Civo provider named name for region. Civo node pools have no region argument,
// so the provider's region is the one every resource it creates lands in.
func NewCivo(ctx *pulumi.Context, name string, cfg *civov1.CivoProviderConfig, region civov1.CivoRegion,
	opts ...pulumi.ResourceOption) (*civo.Provider, error) {
	args := &civo.ProviderArgs{Region: pulumi.String(region.String())}
	if token := firstNonEmpty(cfg.GetApiToken(), os.Getenv(CivoTokenEnv)); token != "" {
		args.Token = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
	}
	if url := firstNonEmpty(cfg.GetApiUrl(), os.Getenv(CivoAPIURLEnv)); url != "" {
		args.ApiEndpoint = pulumi.String(url)
	}
	p, err := civo.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create civo provider")
}

// NewDigitalOcean creates a DigitalOcean provider named name.
func NewDigitalOcean(ctx *pulumi.Context, name string, cfg *digitaloceanv1.DigitalOceanProviderConfig,
	opts ...pulumi.ResourceOption) (*digitalocean.Provider, error) {
	args := &digitalocean.ProviderArgs{}
	if token := firstNonEmpty(cfg.GetApiToken(), os.Getenv(DigitalOceanTokenEnv)); token != "" {
		args.Token = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
	}
	if url := firstNonEmpty(cfg.GetApiUrl(), os.Getenv(DigitalOceanAPIURLEnv)); url != "" {
		args.ApiEndpoint = pulumi.String(url)
	}
	p, err := digitalocean.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create digitalocean provider")
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
