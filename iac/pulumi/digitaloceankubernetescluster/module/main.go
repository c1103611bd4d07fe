// Package module deploys a DigitalOceanKubernetesCluster: the cluster with its default node pool
// under a component resource, with a provider unless one is given. New is the constructor for Go
// Pulumi programs; Resources is the stack programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"github.com/clusterplane/clusterplane/pkg/change/partgone"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/cloud/importing"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	// Kind is the manifest kind this module deploys.
	Kind = "DigitalOceanKubernetesCluster"
)

// TypeToken is the type of the component resource.
var TypeToken = plugin.ComponentType(Kind)

// Option configures New. It is this kind's own type: another kind's options do not compile here.
type Option = component.Option[*v1.DigitalOceanKubernetesClusterSpec, *digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig]

// WithVpcID places the cluster in the VPC with this id, e.g. a VPC created in the same program;
// it stands in for spec.vpc.
func WithVpcID(id pulumi.StringInput) Option {
	return component.WithInput[Option](v1.DigitalOceanKubernetesClusterSpecFieldVpc, id)
}

// The options every kind's New takes: WithMetadata sets the metadata (by default only the name),
// WithProvider an existing provider to manage the resources instead of one New creates,
// WithProviderConfig the config of the provider New creates (default: the environment's token)
// and WithResourceOptions options such as a parent or protect for the component.
var WithMetadata, WithProvider, WithProviderConfig, WithResourceOptions = component.Common[Option]()

// New validates spec (with the rules and messages of the programs) and creates the cluster
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones: the cluster is registered with Pulumi's protect
// unless spec.deletion_protection is false, and the engine then refuses the replacement.
var New = kind.New

// settings are New's options applied.
type settings = component.Settings[*digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig]

// kind is what New does of its own: it refuses registry integration the account cannot have, reads
// the version a cluster runs and creates the cluster in its VPC.
var kind = component.Kind[*digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig, *v1.DigitalOceanKubernetesClusterSpec, *Cluster]{
	Name:     Kind,
	Check:    checkRegistry,
	Provider: component.ProviderOfConfig[*v1.DigitalOceanKubernetesClusterSpec](digitaloceanprovider.New),
	Build:    build,
}

func build(ctx *pulumi.Context, name string, s *settings, spec *v1.DigitalOceanKubernetesClusterSpec, c *Cluster,
	child []pulumi.ResourceOption, p *digitalocean.Provider) error {
	var vpc pulumi.StringPtrInput
	if s.HasInput(v1.DigitalOceanKubernetesClusterSpecFieldVpc, spec.GetVpc()) {
		id, err := s.Input(ctx, name, v1.DigitalOceanKubernetesClusterSpecFieldVpc, spec.GetVpc(), stackoutputs.DigitalOceanKubernetesClusterVpcUUID, child...)
		if err != nil {
			return err
		}
		vpc = id
	}
	l := newLocals(ctx.Context(), name, s.Metadata, spec)
	v, err := clusterVersion(ctx, l, liveLookup(ctx, s, p), pulumi.Provider(p))
	if err != nil {
		return err
	}
	cl, err := cluster(ctx, l, v, vpc, append(child, pulumi.Provider(p))...)
	if err != nil {
		return err
	}
	c.setOutputs(cl)
	return nil
}

// liveLookup is how the module reads the version a cluster runs: from DigitalOcean's API, every
// page of the account's clusters, with the credentials the module knows; through the provider's
// lookup, which reads only the first page, for a provider given with WithProvider, under mocks and
// without a token the module knows. The list also tells whether the cluster's default pool is
// gone, which the module refuses (partgone.Error). When the program's context
// carries the state an up just read from DigitalOcean (clusterplane's comparison right after such
// an up), LiveCluster takes the version from that state and lists nothing; no other run carries
// one.
func liveLookup(ctx *pulumi.Context, s *settings, p *digitalocean.Provider) func(string) (string, error) {
	byProvider := func(name string) (string, error) { return liveVersion(ctx, name, pulumi.Provider(p)) }
	if ctx.RunningWithMocks() || s.HasProvider() {
		return byProvider
	}
	return func(name string) (string, error) {
		live, err := digitaloceanprovider.LiveCluster(ctx.Context(), s.ProviderConfig, name)
		if errors.Is(err, digitaloceanprovider.ErrNoToken) {
			return byProvider(name)
		}
		if err == nil && live.DefaultPoolGone && !importing.Of(ctx.Context()) {
			// The same list tells the cluster's pools: with none tagged as the default, the
			// provider would keep the pool it recorded, and no deploy of it can work. An import
			// (adopt) is how such a cluster comes under a stack: the provider's import tags its
			// one pool itself, and adopt tags the manifest's among several first.
			return "", &partgone.Error{Cloud: "DigitalOcean", Field: dofacts.DefaultPoolField, Part: "pool", Cluster: name,
				Mark: dofacts.DefaultPoolTag}
		}
		return live.Version, errors.Wrapf(err, "read the version cluster %s runs", name)
	}
}

// checkRegistry refuses registry integration for an account without a container registry before
// anything is registered: the provider would create the cluster and fail only then. It asks only
// with credentials the module knows (not those of a provider given with WithProvider) and never
// under mocks, so offline plans and tests stay offline.
func checkRegistry(ctx *pulumi.Context, s *settings, spec *v1.DigitalOceanKubernetesClusterSpec) error {
	if !spec.GetRegistryIntegration() || ctx.RunningWithMocks() || s.HasProvider() {
		return nil
	}
	if digitaloceanprovider.HasRegistry(ctx.Context(), s.ProviderConfig) == digitaloceanprovider.RegistryMissing {
		return errors.New("spec.registryIntegration: the DigitalOcean account has no container registry, and DigitalOcean " +
			"would refuse the integration only after creating the cluster; create the registry first " +
			"(`doctl registry create NAME`) or set registryIntegration: false")
	}
	return nil
}

// Resources is the stack programs' entry point: it validates the stack input, deploys its cluster
// and exports its outputs (component.Resources).
var Resources = component.Resources[*v1.DigitalOceanKubernetesClusterStackInput](kind)
