package effects

import "github.com/clusterplane/clusterplane/pkg/kubeversion"

// The DigitalOcean Terraform resources, as change-effects.json names them.
const (
	doCluster  = "digitalocean_kubernetes_cluster."
	doNodePool = "digitalocean_kubernetes_node_pool."
)

var (
	doTypes = map[Role]string{
		Component: "clusterplane:digitalocean:KubernetesCluster",
		Cluster:   "digitalocean:index/kubernetesCluster:KubernetesCluster",
		Provider:  "pulumi:providers:digitalocean",
	}
	doPoolTypes = map[Role]string{
		Component: "clusterplane:digitalocean:KubernetesNodePool",
		NodePool:  "digitalocean:index/kubernetesNodePool:KubernetesNodePool",
		Provider:  "pulumi:providers:digitalocean",
	}
)

const (
	doClusterReplaced = "DigitalOcean cannot change it on a running cluster, so the provider deletes the cluster " +
		"with every node and workload, its load balancers' addresses and its kubeconfig, and creates a new one"
	doPoolReplaced = "DigitalOcean cannot change it on a running pool, so the provider deletes the pool with " +
		"its nodes and the pods on them, and creates a new one; the cluster stays"
	doNodeCountAutoscaled = "with autoScale the cluster autoscaler owns the node count; the module ignores " +
		"changes to it so that a deployment never undoes the autoscaler"
	doUpdated = "DigitalOcean updates it on the running cluster"
)

func init() {
	cluster := &Kind{
		Name:      "DigitalOceanKubernetesCluster",
		Types:     doTypes,
		Protected: []Role{Cluster},
		Rows: []Row{
			{Path: "spec.clusterName", Resource: Cluster, Attribute: doCluster + "name", Effect: Update, Reason: "DigitalOcean renames the cluster in place"},
			{Path: "spec.region", Resource: Cluster, Attribute: doCluster + "region", Effect: Replace, Reason: "a cluster cannot move between regions: " + doClusterReplaced},
			{Path: "spec.kubernetesVersion", Resource: Cluster, Attribute: doCluster + "version", Effect: Update,
				Reason: "a higher version upgrades the cluster in place", When: doVersion},
			{Path: "spec.vpc", Resource: Cluster, Attribute: doCluster + "vpc_uuid", Effect: Replace, Reason: "a cluster cannot move between VPCs: " + doClusterReplaced},
			{Path: "spec.highlyAvailable", Resource: Cluster, Attribute: doCluster + "ha", Effect: Update,
				Reason: "turning high availability on upgrades the control plane in place", When: doHighAvailability},
			{Path: "spec.autoUpgrade", Resource: Cluster, Attribute: doCluster + "auto_upgrade", Effect: Update, Reason: doUpdated},
			{Path: "spec.disableSurgeUpgrade", Resource: Cluster, Attribute: doCluster + "surge_upgrade", Effect: Update, Reason: doUpdated},
			{Path: "spec.maintenanceWindow", Resource: Cluster, Attribute: doCluster + "maintenance_policy", Effect: Update, Reason: doUpdated},
			{Path: "spec.registryIntegration", Resource: Cluster, Attribute: doCluster + "registry_integration", Effect: Update,
				Reason: "DigitalOcean connects or disconnects the registry in place"},
			{Path: "spec.controlPlaneFirewallAllowedAddresses", Resource: Cluster, Attribute: doCluster + "control_plane_firewall", Effect: Update, Reason: doUpdated},
			{Path: "spec.clusterSubnet", Resource: Cluster, Attribute: doCluster + "cluster_subnet", Effect: Replace, Reason: "the pod network is fixed at creation: " + doClusterReplaced},
			{Path: "spec.serviceSubnet", Resource: Cluster, Attribute: doCluster + "service_subnet", Effect: Replace, Reason: "the service network is fixed at creation: " + doClusterReplaced},
			{Path: "spec.kubeconfigExpireSeconds", Resource: Cluster, Attribute: doCluster + "kubeconfig_expire_seconds", Effect: Update,
				Reason: "recorded in state only; it applies the next time the provider fetches credentials, after the current ones expire"},
			{Path: "spec.destroyAllAssociatedResources", Resource: Cluster, Attribute: doCluster + "destroy_all_associated_resources", Effect: Update,
				Reason: "recorded in state only; it applies when the cluster is destroyed"},
			{Path: "spec.clusterAutoscaler", Resource: Cluster, Attribute: doCluster + "cluster_autoscaler_configuration", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.nodePoolName", Resource: Cluster, Attribute: doCluster + "node_pool.name", Effect: Update, Reason: "DigitalOcean renames the pool in place"},
			{Path: "spec.defaultNodePool.size", Resource: Cluster, Attribute: doCluster + "node_pool.size", Effect: Replace,
				Reason: "the default pool's droplet size is fixed, and the provider replaces the whole cluster, not just the pool: " + doClusterReplaced},
			{Path: "spec.defaultNodePool.nodeCount", Resource: Cluster, Attribute: doCluster + "node_pool.node_count", Effect: Update,
				Reason: "DigitalOcean adds or removes nodes", When: ignoredUnder(doNodeCountAutoscaled, "defaultNodePool", "autoScale")},
			{Path: "spec.defaultNodePool.autoScale", Resource: Cluster, Attribute: doCluster + "node_pool.auto_scale", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.minNodes", Resource: Cluster, Attribute: doCluster + "node_pool.min_nodes", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.maxNodes", Resource: Cluster, Attribute: doCluster + "node_pool.max_nodes", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.labels", Resource: Cluster, Attribute: doCluster + "node_pool.labels", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.taints", Resource: Cluster, Attribute: doCluster + "node_pool.taint", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.tags", Resource: Cluster, Attribute: doCluster + "node_pool.tags", Effect: Update, Reason: doUpdated},
			{Path: "spec.tags", Resource: Cluster, Attribute: doCluster + "tags", Effect: Update, Reason: doUpdated},
			{Path: "spec.routingAgent", Resource: Cluster, Attribute: doCluster + "routing_agent", Effect: Update, Reason: doUpdated},
			{Path: "spec.nvidiaGpuDevicePlugin", Resource: Cluster, Attribute: doCluster + "nvidia_gpu_device_plugin", Effect: Update, Reason: doUpdated},
			{Path: "spec.amdGpuDevicePlugin", Resource: Cluster, Attribute: doCluster + "amd_gpu_device_plugin", Effect: Update, Reason: doUpdated},
			{Path: "spec.amdGpuDeviceMetricsExporterPlugin", Resource: Cluster, Attribute: doCluster + "amd_gpu_device_metrics_exporter_plugin",
				Effect: Update, Reason: doUpdated},
			{Path: "spec.rdmaSharedDevicePlugin", Resource: Cluster, Attribute: doCluster + "rdma_shared_device_plugin", Effect: Update, Reason: doUpdated},
			protectionRow(),
		},
	}
	cluster.Rows = append(cluster.Rows, metadataRows(Cluster, doCluster+"tags", "the derived tags change; "+doUpdated)...)
	cluster.Rows = append(cluster.Rows, providerRows("apiToken", "apiUrl")...)
	register(cluster)

	pool := &Kind{
		Name:  "DigitalOceanKubernetesNodePool",
		Types: doPoolTypes,
		Rows: []Row{
			{Path: "spec.nodePoolName", Resource: NodePool, Attribute: doNodePool + "name", Effect: Update, Reason: "DigitalOcean renames the pool in place"},
			{Path: "spec.cluster", Resource: NodePool, Attribute: doNodePool + "cluster_id", Effect: Replace, Reason: "a pool cannot move between clusters: " + doPoolReplaced},
			{Path: "spec.size", Resource: NodePool, Attribute: doNodePool + "size", Effect: Replace, Reason: "the droplet size is fixed: " + doPoolReplaced},
			{Path: "spec.nodeCount", Resource: NodePool, Attribute: doNodePool + "node_count", Effect: Update,
				Reason: "DigitalOcean adds or removes nodes", When: ignoredUnder(doNodeCountAutoscaled, "autoScale")},
			{Path: "spec.autoScale", Resource: NodePool, Attribute: doNodePool + "auto_scale", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.minNodes", Resource: NodePool, Attribute: doNodePool + "min_nodes", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.maxNodes", Resource: NodePool, Attribute: doNodePool + "max_nodes", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.labels", Resource: NodePool, Attribute: doNodePool + "labels", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.taints", Resource: NodePool, Attribute: doNodePool + "taint", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.tags", Resource: NodePool, Attribute: doNodePool + "tags", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
		},
	}
	pool.Rows = append(pool.Rows, metadataRows(NodePool, doNodePool+"tags", "the derived tags change; DigitalOcean updates the pool in place")...)
	pool.Rows = append(pool.Rows, providerRows("apiToken", "apiUrl")...)
	register(pool)
}

// doVersion: the module refuses a version older than the one DigitalOcean runs, because the
// provider would replace the cluster (its ForceNewIfChange on a decrease); with autoUpgrade a
// change within the running minor line is left to DigitalOcean, a higher minor upgrades.
func doVersion(c Change) (Effect, string, bool) {
	newVersion, oldVersion := c.New.String(), c.Old.String()
	if boolAt(c.NewSpec, "autoUpgrade") && kubeversion.SameMinor(newVersion, oldVersion) {
		return Ignored, "with autoUpgrade DigitalOcean keeps the patch version of the minor line current in the maintenance " +
			"window; the module leaves it to DigitalOcean", true
	}
	if less, ok := kubeversion.Less(newVersion, oldVersion); ok && less {
		return Refused, "DigitalOcean cannot downgrade a cluster and the provider would replace it, so the module refuses " +
			"a version older than the one the cluster runs (" + doClusterReplaced + " otherwise)", true
	}
	return "", "", false
}

// doHighAvailability: DigitalOcean refuses to turn high availability off.
func doHighAvailability(c Change) (Effect, string, bool) {
	if c.Old.Bool() && !c.New.Bool() {
		return Refused, "DigitalOcean's API refuses to turn high availability off once it is on", true
	}
	return "", "", false
}
