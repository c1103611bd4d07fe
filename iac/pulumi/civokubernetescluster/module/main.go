// Package module deploys a CivoKubernetesCluster: the cluster with its one node pool and, unless
// one is given, a firewall, under a component resource with a provider in the cluster's region
// unless one is given. New is the constructor for Go Pulumi programs; Resources is the stack
// programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider/civoprovider"
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
type Option func(*component.Settings[*civo.Provider, *civov1.CivoProviderConfig])

// Options of New.
var (
	// WithMetadata sets the metadata the cluster's tags derive from; by default only the name.
	WithMetadata = component.WithMetadata[Option]
	// WithProvider manages the cluster with an existing provider, which must be set to the
	// cluster's region, instead of creating one.
	WithProvider = component.WithProvider[Option]
	// WithProviderConfig configures the provider New creates (default: the environment's token).
	WithProviderConfig = component.WithProviderConfig[Option]
	// WithResourceOptions applies options such as a parent or protect to the component.
	WithResourceOptions = component.WithResourceOptions[Option]
)

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

// New validates spec (with the rules and messages of the programs) and creates the cluster
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones: the cluster is registered with Pulumi's protect
// unless spec.deletion_protection is false, and the engine then refuses the replacement.
func New(ctx *pulumi.Context, name string, spec *v1.CivoKubernetesClusterSpec, opts ...Option) (*Cluster, error) {
	s := component.Apply(name, opts)
	if err := s.Validate(Kind, name, spec); err != nil {
		return nil, err
	}
	c := &Cluster{}
	child, err := s.Register(ctx, TypeToken, name, c)
	if err != nil {
		return nil, err
	}
	p, err := s.ProviderOr(func() (*civo.Provider, error) {
		return civoprovider.New(ctx, name, s.ProviderConfig, spec.GetRegion(), child...)
	})
	if err != nil {
		return nil, err
	}
	l := newLocals(name, s.Metadata, spec)
	// No network: the Civo provider places the firewall and the cluster in the region's default
	// network, as the civo CLI does.
	var networkID pulumi.StringInput
	if s.HasInput(v1.CivoKubernetesClusterSpecFieldNetwork, spec.GetNetwork()) {
		if networkID, err = s.Input(ctx, name, v1.CivoKubernetesClusterSpecFieldNetwork, spec.GetNetwork(), NetworkIDOutput, child...); err != nil {
			return nil, err
		}
	}
	var firewallID pulumi.StringOutput
	if s.HasInput(v1.CivoKubernetesClusterSpecFieldFirewall, spec.GetFirewall()) {
		if firewallID, err = s.Input(ctx, name, v1.CivoKubernetesClusterSpecFieldFirewall, spec.GetFirewall(), FirewallIDOutput, child...); err != nil {
			return nil, err
		}
	} else {
		fw, err := firewall(ctx, l, networkID, append(child, pulumi.Provider(p))...)
		if err != nil {
			return nil, err
		}
		firewallID = fw.ID().ToStringOutput()
	}
	cl, err := cluster(ctx, l, networkID, firewallID, append(child, pulumi.Provider(p))...)
	if err != nil {
		return nil, err
	}
	c.setOutputs(cl)
	if err := component.Finish(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Resources is the stack programs' entry point: it validates the stack input, deploys its cluster
// and exports its outputs. The programs' loader has checked the input already, with positions; the
// rules cost well under a millisecond, and a Go program that builds its stack input itself is
// checked too.
func Resources(ctx *pulumi.Context, input *v1.CivoKubernetesClusterStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	target := input.GetTarget()
	c, err := New(ctx, target.GetMetadata().GetName(), target.GetSpec(),
		WithMetadata(target.GetMetadata()),
		WithProviderConfig(input.GetProviderConfig()),
		component.WithStackAliases[Option](),
		component.WithValidated[Option]())
	if err != nil {
		return err
	}
	component.Export(ctx, c.stackOutputs())
	return nil
}
