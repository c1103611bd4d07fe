// Package module deploys a CivoKubernetesCluster: the cluster with its one node pool and, unless
// one is given, a firewall, under a component resource with a provider in the cluster's region
// unless one is given. New is the constructor for Go Pulumi programs; Resources is the stack
// programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	// Kind is the manifest kind this module deploys.
	Kind = "CivoKubernetesCluster"
	// NetworkIDOutput and FirewallIDOutput are the outputs a `valueFrom` network or firewall
	// reads by default.
	NetworkIDOutput  = "network_id"
	FirewallIDOutput = "firewall_id"
)

// TypeToken is the type of the component resource.
var TypeToken = plugin.ComponentType(Kind)

// Option configures New. It is this kind's own type: another kind's options do not compile here.
type Option = component.Option[*v1.CivoKubernetesClusterSpec, *civo.Provider, *civov1.CivoProviderConfig]

// WithNetworkID places the cluster in the network with this id, e.g. a civo.Network created in
// the same program; it stands in for spec.network.
func WithNetworkID(id pulumi.StringInput) Option {
	return component.WithInput[Option](v1.CivoKubernetesClusterSpecFieldNetwork, id)
}

// WithFirewallID puts the cluster behind the firewall with this id instead of one the module
// creates; it stands in for spec.firewall.
func WithFirewallID(id pulumi.StringInput) Option {
	return component.WithInput[Option](v1.CivoKubernetesClusterSpecFieldFirewall, id)
}

// The options every kind's New takes: WithMetadata sets the metadata (by default only the name),
// WithProvider an existing provider to manage the resources instead of one New creates,
// WithProviderConfig the config of the provider New creates (default: the environment's token)
// and WithResourceOptions options such as a parent or protect for the component. A provider
// given with WithProvider must be set to the cluster's region.
var WithMetadata, WithProvider, WithProviderConfig, WithResourceOptions = component.Common[Option]()

// New validates spec (with the rules and messages of the programs) and creates the cluster
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones: the cluster is registered with Pulumi's protect
// unless spec.deletion_protection is false, and the engine then refuses the replacement.
var New = kind.New

// Resources is the stack programs' entry point: it validates the stack input, deploys its cluster
// and exports its outputs (component.Resources).
var Resources = component.Resources[*v1.CivoKubernetesClusterStackInput](kind)

// kind is what New does of its own: a provider in the cluster's region, the firewall unless one
// is given, and the cluster.
var kind = component.Kind[*civo.Provider, *civov1.CivoProviderConfig, *v1.CivoKubernetesClusterSpec, *Cluster]{
	Name:     Kind,
	Provider: component.ProviderInRegion[*v1.CivoKubernetesClusterSpec](civoprovider.New),
	Build:    build,
}

// settings are New's options applied.
type settings = component.Settings[*civo.Provider, *civov1.CivoProviderConfig]

func build(ctx *pulumi.Context, name string, s *settings, spec *v1.CivoKubernetesClusterSpec, c *Cluster,
	child []pulumi.ResourceOption, p *civo.Provider) error {
	l := newLocals(ctx.Context(), name, s.Metadata, spec)
	// No network: the Civo provider places the firewall and the cluster in the region's default
	// network, as the civo CLI does.
	var networkID pulumi.StringInput
	var err error
	if s.HasInput(v1.CivoKubernetesClusterSpecFieldNetwork, spec.GetNetwork()) {
		if networkID, err = s.Input(ctx, name, v1.CivoKubernetesClusterSpecFieldNetwork, spec.GetNetwork(), NetworkIDOutput, child...); err != nil {
			return err
		}
	}
	var firewallID pulumi.StringOutput
	if s.HasInput(v1.CivoKubernetesClusterSpecFieldFirewall, spec.GetFirewall()) {
		if firewallID, err = s.Input(ctx, name, v1.CivoKubernetesClusterSpecFieldFirewall, spec.GetFirewall(), FirewallIDOutput, child...); err != nil {
			return err
		}
	} else {
		fw, err := firewall(ctx, l, networkID, append(child, pulumi.Provider(p))...)
		if err != nil {
			return err
		}
		firewallID = fw.ID().ToStringOutput()
	}
	cl, err := cluster(ctx, l, networkID, firewallID, append(child, pulumi.Provider(p))...)
	if err != nil {
		return err
	}
	c.setOutputs(cl)
	return nil
}
