// Package module deploys a DigitalOceanKubernetesNodePool: a node pool on an existing cluster
// under a component resource, with a provider unless one is given. New is the constructor for Go
// Pulumi programs; Resources is the stack programs' entry point, built on it.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
)

// Kind is the manifest kind this module deploys.
const Kind = "DigitalOceanKubernetesNodePool"

// kind is what New does of its own: the pool, on the cluster the spec or WithClusterID names.
var kind = component.Kind[*digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig, *v1.DigitalOceanKubernetesNodePoolSpec, *NodePool]{
	Name:     Kind,
	Build:    component.JoinCluster(nodePool, (*NodePool).setOutputs),
	Provider: component.ProviderOfConfig[*v1.DigitalOceanKubernetesNodePoolSpec](digitaloceanprovider.New),
}

// TypeToken is the type of the component resource.
var TypeToken = plugin.ComponentType(Kind)

// Option configures New. It is this kind's own type: another kind's options do not compile here.
type Option = component.Option[*v1.DigitalOceanKubernetesNodePoolSpec, *digitalocean.Provider, *digitaloceanv1.DigitalOceanProviderConfig]

// The options New takes: WithMetadata sets the metadata (by default only the name), WithProvider
// an existing provider to manage the resources instead of one New creates, WithProviderConfig the
// config of the provider New creates (default: the environment's token), WithResourceOptions
// options such as a parent or protect for the component, and WithClusterID joins the pool to the
// cluster with this id, typically the ClusterID output of a cluster created in the same program,
// so that the pool is created after it (it stands in for spec.cluster).
var WithMetadata, WithProvider, WithProviderConfig, WithResourceOptions, WithClusterID = component.PoolOptions[Option]()

// New validates spec (with the rules and messages of the programs) and creates the node pool
// under a component resource named name. The name names every resource inside the component, so
// renaming it later deletes them and creates new ones.
var New = kind.New

// Resources is the stack programs' entry point: it validates the stack input, deploys its node
// pool and exports its outputs (component.Resources).
var Resources = component.Resources[*v1.DigitalOceanKubernetesNodePoolStackInput](kind)
