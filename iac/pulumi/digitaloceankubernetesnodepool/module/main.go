// Package module deploys a DigitalOceanKubernetesNodePool: a node pool on an existing cluster
// under a component resource, with a provider unless one is given. New is the constructor for Go
// Pulumi programs; Resources is the stack programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider/digitaloceanprovider"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	// Kind is the manifest kind this module deploys.
	Kind = "DigitalOceanKubernetesNodePool"
	// ClusterIDOutput is the cluster stack's output a `valueFrom` cluster reads by default.
	ClusterIDOutput = "cluster_id"
)

// TypeToken is the type of the component resource.
var TypeToken = plugin.ComponentType(Kind)

// Option configures New. It is this kind's own type: another kind's options do not compile here.
type Option func(*component.Settings[*digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig])

// Options of New.
var (
	// WithMetadata sets the metadata the pool's tags derive from; by default only the name.
	WithMetadata = component.WithMetadata[Option]
	// WithProvider manages the pool with an existing provider instead of creating one.
	WithProvider = component.WithProvider[Option]
	// WithProviderConfig configures the provider New creates (default: the environment's token).
	WithProviderConfig = component.WithProviderConfig[Option]
	// WithResourceOptions applies options such as a parent or protect to the component.
	WithResourceOptions = component.WithResourceOptions[Option]
)

// WithClusterID joins the pool to the cluster with this id, typically the ClusterID output of a
// cluster created in the same program, so the pool is created after it. It stands in for
// spec.cluster.
func WithClusterID(id pulumi.StringInput) Option {
	return component.WithInput[Option](v1.DigitalOceanKubernetesNodePoolSpecFieldCluster, id)
}

// New validates spec (with the rules and messages of the programs) and creates the node pool
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones.
func New(ctx *pulumi.Context, name string, spec *v1.DigitalOceanKubernetesNodePoolSpec, opts ...Option) (*NodePool, error) {
	s := component.Apply(name, opts)
	if err := s.Validate(Kind, name, spec); err != nil {
		return nil, err
	}
	np := &NodePool{}
	child, err := s.Register(ctx, TypeToken, name, np)
	if err != nil {
		return nil, err
	}
	p, err := s.ProviderOr(func() (*digitalocean.Provider, error) {
		return digitaloceanprovider.New(ctx, name, s.ProviderConfig, child...)
	})
	if err != nil {
		return nil, err
	}
	clusterID, err := s.Input(ctx, name, v1.DigitalOceanKubernetesNodePoolSpecFieldCluster, spec.GetCluster(), ClusterIDOutput, child...)
	if err != nil {
		return nil, err
	}
	pool, err := nodePool(ctx, newLocals(name, s.Metadata, spec), clusterID, append(child, pulumi.Provider(p))...)
	if err != nil {
		return nil, err
	}
	np.setOutputs(pool)
	if err := component.Finish(ctx, np); err != nil {
		return nil, err
	}
	return np, nil
}

// Resources is the stack programs' entry point: it validates the stack input, deploys its node pool
// and exports its outputs. The programs' loader has checked the input already, with positions; the
// rules cost well under a millisecond, and a Go program that builds its stack input itself is
// checked too.
func Resources(ctx *pulumi.Context, input *v1.DigitalOceanKubernetesNodePoolStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	target := input.GetTarget()
	np, err := New(ctx, target.GetMetadata().GetName(), target.GetSpec(),
		WithMetadata(target.GetMetadata()),
		WithProviderConfig(input.GetProviderConfig()),
		component.WithStackAliases[Option](),
		component.WithValidated[Option]())
	if err != nil {
		return err
	}
	component.Export(ctx, np.stackOutputs())
	return nil
}
