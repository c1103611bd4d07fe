// Package module deploys a CivoKubernetesNodePool: a node pool on an existing cluster under a
// component resource. The pool is the clusterplane plugin's own resource (clusterplane:civo:NodePool,
// iac/pulumi/civokubernetesnodepool/poolresource), not the civo provider's, which cannot scale a pool; the plugin must be
// there at deploy time (civoprovider.CheckPlugin). New is the
// constructor for Go Pulumi programs; Resources is the stack programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/sdk/go/clusterplane"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Kind is the manifest kind this module deploys.
const Kind = "CivoKubernetesNodePool"

// settings are New's options applied.
type settings = component.Settings[*clusterplane.Provider, *civov1.CivoProviderConfig]

// kind is what New does of its own: it refuses a missing plugin, serves the pool through the
// plugin's provider and keeps the URNs of the releases where the civo provider managed it.
var kind = component.Kind[*clusterplane.Provider, *civov1.CivoProviderConfig, *v1.CivoKubernetesNodePoolSpec, *NodePool]{
	Name: Kind,
	// Before anything is registered, as the plugin must be there at deploy time; under mocks and
	// inside the plugin there is nothing to look for.
	Check: func(ctx *pulumi.Context, s *settings, _ *v1.CivoKubernetesNodePoolSpec) error {
		if ctx.RunningWithMocks() || s.InPlugin {
			return nil
		}
		return civoprovider.CheckPlugin()
	},
	Build: component.JoinCluster(nodePool, (*NodePool).setOutputs),
	Provider: func(ctx *pulumi.Context, name string, s *settings, spec *v1.CivoKubernetesNodePoolSpec,
		child []pulumi.ResourceOption) (*clusterplane.Provider, error) {
		return civoprovider.Plugin(ctx, name, s.ProviderConfig, spec.GetRegion(),
			append(child, pulumi.Aliases(oldAliases(s, oldProviderType)))...)
	},
}

// TypeToken is the type of the component resource.
var TypeToken = plugin.ComponentType(Kind)

// Option configures New. It is this kind's own type: another kind's options do not compile here.
type Option = component.Option[*v1.CivoKubernetesNodePoolSpec, *clusterplane.Provider, *civov1.CivoProviderConfig]

// The options New takes: WithMetadata sets the metadata (by default only the name), WithProvider
// an existing provider to manage the resources instead of one New creates (a clusterplane
// provider: its civoToken and civoApiUrl), WithProviderConfig the config of the provider New
// creates (default: the environment's token), WithResourceOptions options such as a parent or
// protect for the component, and WithClusterID joins the pool to the cluster with this id,
// typically the ClusterID output of a cluster created in the same program, so that the pool is
// created after it (it stands in for spec.cluster).
var WithMetadata, WithProvider, WithProviderConfig, WithResourceOptions, WithClusterID = component.PoolOptions[Option]()

// New validates spec (with the rules and messages of the programs) and creates the node pool
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones.
var New = kind.New

// Resources is the stack programs' entry point: it validates the stack input, deploys its node
// pool and exports its outputs (component.Resources).
var Resources = component.Resources[*v1.CivoKubernetesNodePoolStackInput](kind)

// oldAliases are the URNs a child of type typ had in the previous releases, where the civo
// provider managed the pool: as the component's child, and (with stack aliases) at the stack's
// root, before components existed.
func oldAliases(s *settings, typ string) []pulumi.Alias {
	aliases := []pulumi.Alias{{Type: pulumi.String(typ)}}
	if s.StackAliases {
		aliases = append(aliases, pulumi.Alias{Type: pulumi.String(typ), NoParent: pulumi.Bool(true)})
	}
	return aliases
}
