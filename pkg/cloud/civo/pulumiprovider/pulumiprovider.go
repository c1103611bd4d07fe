// Package pulumiprovider creates the explicit Civo provider a stack deploys with, so that
// credentials come from the stack input (or the environment) and are always Pulumi secrets.
package pulumiprovider

import (
	"os/exec"
	"path/filepath"

	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/plugin"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/sdk/go/clusterplane"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/env"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// New creates a Civo provider named name for region. Civo node pools have no region argument,
// so the provider's region is the one every resource it creates lands in.
func New(ctx *pulumi.Context, name string, cfg *civov1.CivoProviderConfig, region string,
	opts ...pulumi.ResourceOption) (*civo.Provider, error) {
	args := &civo.ProviderArgs{Region: pulumi.String(region)}
	token, url, err := civodriver.Env.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
	if err != nil {
		return nil, errors.Wrap(err, "create civo provider")
	}
	if token != "" {
		args.Token = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
	}
	if url != "" {
		args.ApiEndpoint = pulumi.String(url)
	}
	p, err := civo.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create civo provider")
}

// Plugin creates the clusterplane provider a Civo node pool is managed with: the same settings
// as New (token and API URL resolved by civodriver.Env.Resolve, the token a secret), read by the
// plugin rather than the civo provider. Its region is the pool's.
func Plugin(ctx *pulumi.Context, name string, cfg *civov1.CivoProviderConfig, region string,
	opts ...pulumi.ResourceOption) (*clusterplane.Provider, error) {
	args := &clusterplane.ProviderArgs{CivoRegion: pulumi.StringPtr(region)}
	token, url, err := civodriver.Env.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
	if err != nil {
		return nil, errors.Wrap(err, "create clusterplane provider")
	}
	// The plugin holds a URL it is given to the same rule, so the URL goes only with a token:
	// without one, the plugin's own missing-token error is the true one.
	if token != "" {
		args.CivoToken = pulumi.ToSecret(pulumi.String(token)).(pulumi.StringOutput)
		if url != "" {
			args.CivoApiUrl = pulumi.StringPtr(url)
		}
	}
	p, err := clusterplane.NewProvider(ctx, name, args, opts...)
	return p, errors.Wrap(err, "create clusterplane provider")
}

// CheckPlugin says how to get the plugin when the engine could not find it: neither on PATH (which
// the engine does not search with PULUMI_IGNORE_AMBIENT_PLUGINS) nor installed under PULUMI_HOME
// (default ~/.pulumi). The engine's own message names the file it missed but not where it comes from.
func CheckPlugin() error {
	if _, err := exec.LookPath(plugin.Name); err == nil && !env.IgnoreAmbientPlugins.Value() {
		return nil
	}
	plugins, err := workspace.GetPluginDir()
	if err != nil {
		return errors.Wrap(err, "find the Pulumi home's plugin folder")
	}
	if found, _ := filepath.Glob(filepath.Join(plugins, "resource-clusterplane-v*", plugin.Name)); len(found) > 0 {
		return nil
	}
	return errors.New("a CivoKubernetesNodePool is managed by the clusterplane plugin, and " + plugin.Name +
		" is neither on PATH nor installed: build it from a checkout with `go build -o $HOME/go/bin/" + plugin.Name +
		" ./cmd/" + plugin.Name + "` (with $HOME/go/bin on PATH), or install a built one with `pulumi plugin install resource clusterplane 0.0.0 --file " +
		plugin.Name + "`; `clusterplane up` needs neither")
}
