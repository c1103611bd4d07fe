package civo

import "github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"

// The models below are Civo's JSON as clusterplane reads it, declared once. Civo's cluster answer
// also holds the cluster's kubeconfig: Cluster has no field for it, so the decoder drops it
// unread (Kubeconfig alone reads it, into memory).

// Cluster is a Kubernetes cluster as Civo lists it, with its pools.
type Cluster struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Version           string   `json:"version"`
	KubernetesVersion string   `json:"kubernetes_version"`
	ClusterType       string   `json:"cluster_type"`
	CNIPlugin         string   `json:"cni_plugin"`
	NetworkID         string   `json:"network_id"`
	FirewallID        string   `json:"firewall_id"`
	Tags              []string `json:"tags"`
	Pools             []Pool   `json:"pools"`
	// Status is the cluster's state (ACTIVE, BUILDING, ...), read by the Karpenter provider
	// before it adds nodes.
	Status string `json:"status"`
	// Instances are the cluster's nodes, each with its state (ACTIVE when running), read by
	// upgrade apply's wait (Upgrades.Health).
	Instances []struct {
		Hostname string `json:"hostname"`
		Status   string `json:"status"`
	} `json:"instances"`
	// InstalledApplications are what Civo installed on the cluster (an anonymous struct, as
	// callers' tests spell it).
	InstalledApplications []struct {
		Name string `json:"name"`
	} `json:"installed_applications"`
}

// Pool is a cluster's node pool; its ID is also its name within the cluster.
type Pool struct {
	ID               string            `json:"id"`
	Size             string            `json:"size"`
	Count            int32             `json:"count"`
	Labels           map[string]string `json:"labels"`
	Taints           []Taint           `json:"taints"`
	PublicIPNodePool bool              `json:"public_ip_node_pool"`
}

// Taint is a Kubernetes taint on a pool's nodes, the same type as DigitalOcean's pools have.
type Taint = cloudapi.Taint

// KubernetesVersion is a version Civo offers: Type is "stable", "deprecated", ...; ClusterType
// its distribution (k3s, talos), "" when the list does not say.
type KubernetesVersion struct {
	Version     string `json:"version"`
	Type        string `json:"type"`
	ClusterType string `json:"clusterType"`
}

// Region is a region, e.g. code LON1.
type Region struct {
	Code string `json:"code"`
}

// Firewall is a firewall of a region, with its rules (Civo lists them with it).
type Firewall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	NetworkID string         `json:"network_id"`
	Rules     []FirewallRule `json:"rules"`
}

// FirewallRule is one rule of a firewall: Direction is ingress or egress, Ports a port or a
// range ("80", "1-65535"), Cidr the addresses it applies to.
type FirewallRule struct {
	ID        string   `json:"id"`
	Protocol  string   `json:"protocol"`
	Ports     string   `json:"ports"`
	Cidr      []string `json:"cidr"`
	Direction string   `json:"direction"`
	Action    string   `json:"action"`
	Label     string   `json:"label"`
}
