package digitalocean

import (
	"slices"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// The models below are DigitalOcean's JSON as clusterplane reads it, declared once. They hold
// only what a caller reads: a cluster's answer has no credentials, and nothing here could hold
// any (the kubeconfig is read by Kubeconfig alone, into memory).

// Cluster is a Kubernetes cluster as DigitalOcean lists it, with its node pools.
type Cluster struct {
	ID              string     `json:"id"`
	Name            string     `json:"name"`
	Region          string     `json:"region"`
	Version         string     `json:"version"`
	ClusterSubnet   string     `json:"cluster_subnet"`
	ServiceSubnet   string     `json:"service_subnet"`
	Tags            []string   `json:"tags"`
	VPCUUID         string     `json:"vpc_uuid"`
	HA              bool       `json:"ha"`
	AutoUpgrade     bool       `json:"auto_upgrade"`
	SurgeUpgrade    bool       `json:"surge_upgrade"`
	RegistryEnabled bool       `json:"registry_enabled"`
	NodePools       []NodePool `json:"node_pools"`
	// Status is the cluster's state (running, provisioning, degraded, ...), read by the Karpenter
	// provider before it adds nodes.
	Status *struct {
		State string `json:"state"`
	} `json:"status"`
	// The three below are anonymous structs, as their literals in callers' tests spell them.
	MaintenancePolicy *struct {
		StartTime string `json:"start_time"`
		Day       string `json:"day"`
	} `json:"maintenance_policy"`
	ControlPlaneFirewall *struct {
		Enabled          *bool    `json:"enabled"`
		AllowedAddresses []string `json:"allowed_addresses"`
	} `json:"control_plane_firewall"`
	ClusterAutoscalerConfiguration *struct {
		ScaleDownUtilizationThreshold *float64 `json:"scale_down_utilization_threshold"`
		ScaleDownUnneededTime         *string  `json:"scale_down_unneeded_time"`
		Expanders                     []string `json:"expanders"`
	} `json:"cluster_autoscaler_configuration"`
	RoutingAgent                      *Switch `json:"routing_agent"`
	AmdGpuDevicePlugin                *Switch `json:"amd_gpu_device_plugin"`
	AmdGpuDeviceMetricsExporterPlugin *Switch `json:"amd_gpu_device_metrics_exporter_plugin"`
	NvidiaGpuDevicePlugin             *Switch `json:"nvidia_gpu_device_plugin"`
	RdmaSharedDevicePlugin            *Switch `json:"rdma_shared_dev_plugin"`
}

// PoolsLeftOut tells that the answer left out the cluster's pools: every DigitalOcean cluster
// has one, so a cluster listed without any says nothing of them.
func (c Cluster) PoolsLeftOut() bool { return len(c.NodePools) == 0 }

// DefaultPoolGone tells that the cluster's pools are listed, each with its tags, and none is
// tagged as the default pool (dofacts.DefaultPoolTag): the pool the provider reads into the
// cluster's node_pool was deleted or lost its tag. Pools left out say nothing, and so does a
// pool listed without any tag: DigitalOcean puts its own k8s tags on every pool, so that
// answer left its tags out, and it may be the default one.
func (c Cluster) DefaultPoolGone() bool {
	if c.PoolsLeftOut() {
		return false
	}
	for _, p := range c.NodePools {
		if len(p.Tags) == 0 || p.IsDefault() {
			return false
		}
	}
	return true
}

// IsDefault tells that the pool is tagged as its cluster's default one, the pool the provider
// reads into the cluster's node_pool (flattenNodePool, terraform-provider-digitalocean v2.75.0
// digitalocean/kubernetes/kubernetes.go).
func (p NodePool) IsDefault() bool { return slices.Contains(p.Tags, dofacts.DefaultPoolTag) }

// Switch is a cluster component turned on or off; a nil Enabled is DigitalOcean's default.
type Switch struct {
	Enabled *bool `json:"enabled"`
}

// NodePool is a cluster's node pool.
type NodePool struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Size      string            `json:"size"`
	Count     int32             `json:"count"`
	Tags      []string          `json:"tags"`
	Labels    map[string]string `json:"labels"`
	Taints    []Taint           `json:"taints"`
	AutoScale bool              `json:"auto_scale"`
	MinNodes  int32             `json:"min_nodes"`
	MaxNodes  int32             `json:"max_nodes"`
	// Nodes are the pool's nodes (pools.go), read by the Karpenter provider.
	Nodes []Node `json:"nodes"`
}

// Taint is a Kubernetes taint on a pool's nodes, the same type as Civo's pools have.
type Taint = cloudapi.Taint

// KubernetesOptions are what DigitalOcean offers a cluster.
type KubernetesOptions struct {
	Versions []Version `json:"versions"`
	Sizes    []Size    `json:"sizes"`
	Regions  []Region  `json:"regions"`
}

// Version is a Kubernetes version, e.g. slug 1.31.1-do.5.
type Version struct {
	Slug string `json:"slug"`
}

// Size is a node size, e.g. slug s-2vcpu-4gb.
type Size struct {
	Slug string `json:"slug"`
}

// Region is a region, e.g. slug fra1.
type Region struct {
	Slug string `json:"slug"`
}

// Clusterlint is a clusterlint run's results: CompletedAt is "" and Diagnostics nil while the run
// goes on.
type Clusterlint struct {
	CompletedAt string       `json:"completed_at"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one clusterlint finding about one object of the cluster.
type Diagnostic struct {
	CheckName string `json:"check_name"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Object    struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
	} `json:"object"`
}
