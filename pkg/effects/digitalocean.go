package effects

import "github.com/clusterplane/clusterplane/pkg/kubeversion"

// The DigitalOcean Terraform resources, as change-effects.json names them.
const (
	doCluster  = "digitalocean_kubernetes_cluster."
	doNodePool = "digitalocean_kubernetes_node_pool."
)

var (
	doTypes = map[Role]string{
		Cluster:  "digitalocean:index/kubernetesCluster:KubernetesCluster",
		Provider: "pulumi:providers:digitalocean",
	}
	doPoolTypes = map[Role]string{
		NodePool: "digitalocean:index/kubernetesNodePool:KubernetesNodePool",
		Provider: "pulumi:providers:digitalocean",
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

// Where the DigitalOcean facts are read: terraform-provider-digitalocean v2.75.0 (bundled by
// pulumi-digitalocean 4.57.0) and the godo it vendors, v1.172.0.
const (
	doClusterSource = "terraform-provider-digitalocean v2.75.0 digitalocean/kubernetes/resource_kubernetes_cluster.go " +
		"ResourceDigitalOceanKubernetesCluster, resourceDigitalOceanKubernetesClusterUpdate"
	doPoolSource = "terraform-provider-digitalocean v2.75.0 digitalocean/kubernetes/kubernetes.go nodePoolSchema, " +
		"resource_kubernetes_node_pool.go digitaloceanKubernetesNodePoolUpdate"
	doLabelsWire = "godo v1.172.0 KubernetesNodePoolUpdateRequest.Labels is map[string]string with omitempty: an empty map is never sent"
)

// Removals that cannot be expressed through the pinned DigitalOcean provider.
var (
	doLabelsCleared = &Decision{Effect: Refused, Refusal: NotApplied, Reason: "the provider's API client leaves an empty label map out of the " +
		"pool update (godo KubernetesNodePoolUpdateRequest labels, omitempty), so the last labels stay on the nodes and " +
		"every later preview shows the change again; keep at least one label, or remove the rest with kubectl after the deploy"}
	doKeptWhenUnsent = func(attribute, instead string) *Decision {
		return &Decision{Effect: Refused, Refusal: Kept, Reason: "the provider's " + attribute + " is Optional and Computed: when the module " +
			"stops sending it the provider keeps the value the cluster has, so removing the field changes nothing; " + instead}
	}
	doComponentKept = func(attribute, field string) *Decision {
		return doKeptWhenUnsent(attribute, "write "+field+": true or false instead")
	}
)

// DigitalOceanCluster is the effects table of a DigitalOceanKubernetesCluster.
func DigitalOceanCluster() *Table {
	cluster := &Table{
		Name:      "DigitalOceanKubernetesCluster",
		Types:     doTypes,
		Protected: []Role{Cluster},
		Rows: []Row{
			{Path: "spec.clusterName", Resource: Cluster, Attribute: doCluster + "name", Effect: Update, Reason: "DigitalOcean renames the cluster in place"},
			{Path: "spec.region", Resource: Cluster, Attribute: doCluster + "region", Effect: Replace, Reason: "a cluster cannot move between regions: " + doClusterReplaced},
			{Path: "spec.kubernetesVersion", Resource: Cluster, Attribute: doCluster + "version", Effect: Update,
				Reason: "the next minor version, or a later patch, upgrades the cluster in place; the module checks at preview " +
					"that a minor upgrade starts from the latest patch of the running minor, as DigitalOcean requires",
				When: doVersion},
			{Path: "spec.vpc", Resource: Cluster, Attribute: doCluster + "vpc_uuid", Effect: Replace, Reason: "a cluster cannot move between VPCs: " + doClusterReplaced,
				Removed: doKeptWhenUnsent("vpc_uuid", "write the VPC's id back (the stack's vpc_uuid output)")},
			{Path: "spec.highlyAvailable", Resource: Cluster, Attribute: doCluster + "ha", Effect: Update,
				Reason: "turning high availability on upgrades the control plane in place", When: doHighAvailability},
			{Path: "spec.autoUpgrade", Resource: Cluster, Attribute: doCluster + "auto_upgrade", Effect: Update, Reason: doUpdated},
			{Path: "spec.disableSurgeUpgrade", Resource: Cluster, Attribute: doCluster + "surge_upgrade", Effect: Update,
				Reason: "turning surge upgrades back on updates the cluster in place", When: doSurge},
			{Path: "spec.maintenanceWindow", Resource: Cluster, Attribute: doCluster + "maintenance_policy", Effect: Update,
				Reason: doUpdated + "; the module always sends a window, " + DigitalOceanDefaultMaintenanceWindow + " when the field is absent, " +
					"so removing it moves the window there (the provider keeps an unsent policy as it was: it is Optional and Computed)"},
			{Path: "spec.registryIntegration", Resource: Cluster, Attribute: doCluster + "registry_integration", Effect: Update,
				Reason: "DigitalOcean connects or disconnects the registry in place"},
			{Path: "spec.controlPlaneFirewallAllowedAddresses", Resource: Cluster, Attribute: doCluster + "control_plane_firewall", Effect: Update, Reason: doUpdated},
			{Path: "spec.clusterSubnet", Resource: Cluster, Attribute: doCluster + "cluster_subnet", Effect: Replace, Reason: "the pod network is fixed at creation: " + doClusterReplaced,
				Removed: doKeptWhenUnsent("cluster_subnet", "write the subnet the cluster has back")},
			{Path: "spec.serviceSubnet", Resource: Cluster, Attribute: doCluster + "service_subnet", Effect: Replace, Reason: "the service network is fixed at creation: " + doClusterReplaced,
				Removed: doKeptWhenUnsent("service_subnet", "write the subnet the cluster has back")},
			{Path: "spec.kubeconfigExpireSeconds", Resource: Cluster, Attribute: doCluster + "kubeconfig_expire_seconds", Effect: Update,
				Reason: "recorded in state only; it applies the next time the provider fetches credentials, after the current ones expire"},
			{Path: "spec.destroyAllAssociatedResources", Resource: Cluster, Attribute: doCluster + "destroy_all_associated_resources", Effect: Update,
				Reason: "recorded in state only; it applies when the cluster is destroyed"},
			{Path: "spec.clusterAutoscaler", Resource: Cluster, Attribute: doCluster + "cluster_autoscaler_configuration", Effect: Update,
				Reason: doUpdated + "; a removed setting goes back to DigitalOcean's default (the provider sends it empty: expandCAConfigOptsForUpdate)"},
			{Path: "spec.defaultNodePool.nodePoolName", Resource: Cluster, Attribute: doCluster + "node_pool.name", Effect: Update, Reason: "DigitalOcean renames the pool in place"},
			{Path: "spec.defaultNodePool.size", Resource: Cluster, Attribute: doCluster + "node_pool.size", Effect: Replace,
				Reason: "the default pool's droplet size is fixed, and the provider replaces the whole cluster, not just the pool: " + doClusterReplaced},
			{Path: "spec.defaultNodePool.nodeCount", Resource: Cluster, Attribute: doCluster + "node_pool.node_count", Effect: Update,
				Reason: "DigitalOcean adds or removes nodes", When: ignoredUnder(doNodeCountAutoscaled, "defaultNodePool", "autoScale")},
			{Path: "spec.defaultNodePool.autoScale", Resource: Cluster, Attribute: doCluster + "node_pool.auto_scale", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.minNodes", Resource: Cluster, Attribute: doCluster + "node_pool.min_nodes", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.maxNodes", Resource: Cluster, Attribute: doCluster + "node_pool.max_nodes", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.labels", Resource: Cluster, Attribute: doCluster + "node_pool.labels", Effect: Update, Reason: doUpdated,
				Removed: doLabelsCleared},
			{Path: "spec.defaultNodePool.taints", Resource: Cluster, Attribute: doCluster + "node_pool.taint", Effect: Update, Reason: doUpdated},
			{Path: "spec.defaultNodePool.tags", Resource: Cluster, Attribute: doCluster + "node_pool.tags", Effect: Update, Reason: doUpdated},
			{Path: "spec.tags", Resource: Cluster, Attribute: doCluster + "tags", Effect: Update, Reason: doUpdated},
			{Path: "spec.routingAgent", Resource: Cluster, Attribute: doCluster + "routing_agent", Effect: Update, Reason: doUpdated,
				Removed: doComponentKept("routing_agent", "routingAgent")},
			{Path: "spec.nvidiaGpuDevicePlugin", Resource: Cluster, Attribute: doCluster + "nvidia_gpu_device_plugin", Effect: Update, Reason: doUpdated,
				Removed: doComponentKept("nvidia_gpu_device_plugin", "nvidiaGpuDevicePlugin")},
			{Path: "spec.amdGpuDevicePlugin", Resource: Cluster, Attribute: doCluster + "amd_gpu_device_plugin", Effect: Update, Reason: doUpdated,
				Removed: doComponentKept("amd_gpu_device_plugin", "amdGpuDevicePlugin")},
			{Path: "spec.amdGpuDeviceMetricsExporterPlugin", Resource: Cluster, Attribute: doCluster + "amd_gpu_device_metrics_exporter_plugin",
				Effect: Update, Reason: doUpdated, Removed: doComponentKept("amd_gpu_device_metrics_exporter_plugin", "amdGpuDeviceMetricsExporterPlugin")},
			{Path: "spec.rdmaSharedDevicePlugin", Resource: Cluster, Attribute: doCluster + "rdma_shared_device_plugin", Effect: Update, Reason: doUpdated,
				Removed: doComponentKept("rdma_shared_device_plugin", "rdmaSharedDevicePlugin")},
			protectionRow(),
		},
	}
	cluster.Rows = append(cluster.Rows, metadataRows(Cluster, doCluster+"tags", "the derived tags change; "+doUpdated)...)
	cluster.Rows = append(cluster.Rows, providerRows("apiToken", "apiUrl")...)
	cluster.Attributes = facts(doCluster, doClusterSource, map[string]string{
		"name": "required", "region": "required forcenew", "version": "required",
		"vpc_uuid": "optional computed forcenew", "cluster_subnet": "optional computed forcenew", "service_subnet": "optional computed forcenew",
		"ha": "optional", "auto_upgrade": "optional", "surge_upgrade": "optional", "registry_integration": "optional",
		"destroy_all_associated_resources": "optional", "kubeconfig_expire_seconds": "optional", "tags": "optional",
		"maintenance_policy": "optional computed", "maintenance_policy.day": "optional computed", "maintenance_policy.start_time": "optional computed",
		"control_plane_firewall": "optional computed", "control_plane_firewall.enabled": "required", "control_plane_firewall.allowed_addresses": "required",
		"cluster_autoscaler_configuration": "optional", "cluster_autoscaler_configuration.scale_down_utilization_threshold": "optional",
		"cluster_autoscaler_configuration.scale_down_unneeded_time": "optional", "cluster_autoscaler_configuration.expanders": "optional",
		"routing_agent": "optional computed", "routing_agent.enabled": "required",
		"nvidia_gpu_device_plugin": "optional computed", "nvidia_gpu_device_plugin.enabled": "required",
		"amd_gpu_device_plugin": "optional computed", "amd_gpu_device_plugin.enabled": "required",
		"amd_gpu_device_metrics_exporter_plugin": "optional computed", "amd_gpu_device_metrics_exporter_plugin.enabled": "required",
		"rdma_shared_device_plugin": "optional computed", "rdma_shared_device_plugin.enabled": "required",
		"node_pool": "required", "node_pool.name": "required", "node_pool.size": "required forcenew", "node_pool.node_count": "optional",
		"node_pool.auto_scale": "optional", "node_pool.min_nodes": "optional", "node_pool.max_nodes": "optional",
		"node_pool.tags": "optional", "node_pool.labels": "optional", "node_pool.taint": "optional",
	})
	constant(cluster.Attributes, doCluster+"node_pool", "the module always sends exactly one default pool; its fields have rows")
	wire(cluster.Attributes, doCluster+"surge_upgrade", "godo v1.172.0 KubernetesClusterUpdateRequest.SurgeUpgrade is a bool with omitempty: "+
		"an update never carries false, while the create request always sends it")
	wire(cluster.Attributes, doCluster+"tags", "tag.TagsSchema is a set hashed ignoring case (util.HashStringIgnoreCase), and "+
		"godo's update omits an empty list; the module always sends the derived tags, so the list is never empty")
	wire(cluster.Attributes, doCluster+"ha", "godo v1.172.0 KubernetesClusterCreateRequest.HA has no omitempty: an unset "+
		"highlyAvailable creates a cluster without HA even where DigitalOcean would default to HA")
	wire(cluster.Attributes, doCluster+"node_pool.labels", doLabelsWire)
	wire(cluster.Attributes, doCluster+"node_pool.taint", "godo v1.172.0 KubernetesNodePoolUpdateRequest.Taints is a *[]Taint: an empty list is sent and clears the taints")
	// flattenNodePool (kubernetes.go) sets node_pool.node_count only when the configuration set it,
	// which an import has not: the live count is in actual_node_count.
	cluster.ReadBack = map[string]string{"nodePool.nodeCount": "nodePool.actualNodeCount"}
	return build(cluster)
}

// DigitalOceanNodePool is the effects table of a DigitalOceanKubernetesNodePool.
func DigitalOceanNodePool() *Table {
	pool := &Table{
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
			{Path: "spec.labels", Resource: NodePool, Attribute: doNodePool + "labels", Effect: Update, Reason: "DigitalOcean updates the pool in place",
				Removed: doLabelsCleared},
			{Path: "spec.taints", Resource: NodePool, Attribute: doNodePool + "taint", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
			{Path: "spec.tags", Resource: NodePool, Attribute: doNodePool + "tags", Effect: Update, Reason: "DigitalOcean updates the pool in place"},
		},
	}
	pool.Rows = append(pool.Rows, metadataRows(NodePool, doNodePool+"tags", "the derived tags change; DigitalOcean updates the pool in place")...)
	pool.Rows = append(pool.Rows, providerRows("apiToken", "apiUrl")...)
	pool.Attributes = facts(doNodePool, doPoolSource, map[string]string{
		"cluster_id": "required forcenew", "name": "required", "size": "required forcenew", "node_count": "optional",
		"auto_scale": "optional", "min_nodes": "optional", "max_nodes": "optional", "tags": "optional", "labels": "optional",
		"taint": "optional",
	})
	wire(pool.Attributes, doNodePool+"labels", doLabelsWire)
	// resourceDigitalOceanKubernetesNodePoolRead sets node_count only when the configuration set
	// it, which an import has not: the live count is in actual_node_count.
	pool.ReadBack = map[string]string{"nodeCount": "actualNodeCount"}
	return build(pool)
}

// DigitalOceanDefaultMaintenanceWindow is the window the module sends when a manifest has none:
// the provider keeps an unsent maintenance_policy as it was (Optional and Computed), so an
// explicit default is what makes removing the field take effect.
const DigitalOceanDefaultMaintenanceWindow = "any day at 00:00 UTC"

// doVersion: the module refuses a version older than the one DigitalOcean runs, because the
// provider would replace the cluster (its ForceNewIfChange on a decrease), and a jump of more than
// one minor version, which DigitalOcean's upgrade API rejects (422 "invalid upgrade path",
// terraform-provider-digitalocean#708 and #887). With autoUpgrade a change within the running
// minor line is left to DigitalOcean.
func doVersion(c Change) (Decision, bool) {
	newVersion, oldVersion := c.New.String(), c.Old.String()
	if boolAt(c.NewSpec, "autoUpgrade") && kubeversion.SameMinor(newVersion, oldVersion) {
		return Decision{Effect: Ignored, Reason: "with autoUpgrade DigitalOcean keeps the patch version of the minor line " +
			"current in the maintenance window; the module leaves it to DigitalOcean"}, true
	}
	if less, ok := kubeversion.Less(newVersion, oldVersion); ok && less {
		return Decision{Effect: Refused, Refusal: FailsAtPreview, Reason: "DigitalOcean cannot downgrade a cluster and the " +
			"provider would replace it, so the module refuses a version older than the one the cluster runs at preview (" +
			doClusterReplaced + " otherwise)"}, true
	}
	if steps, ok := kubeversion.MinorSteps(oldVersion, newVersion); ok && steps > 1 {
		return Decision{Effect: Refused, Refusal: FailsAtPreview, Reason: "DigitalOcean upgrades one minor version at a " +
			"time, from the latest patch of the running minor, and fails a jump of several minors at apply with 422 invalid " +
			"upgrade path (terraform-provider-digitalocean#708, #887), so the module refuses it at preview. Deploy each " +
			"minor version in turn"}, true
	}
	return Decision{}, false
}

// doSurge: turning surge upgrades off on a running cluster never reaches DigitalOcean, because
// the provider's API client leaves a false surge_upgrade out of the update request.
func doSurge(c Change) (Decision, bool) {
	if !c.Old.Bool() && c.New.Bool() {
		return Decision{Effect: Refused, Refusal: NotApplied, Reason: "the provider's API client leaves surge_upgrade: " +
			"false out of the update request (godo KubernetesClusterUpdateRequest, omitempty), so surge upgrades stay on " +
			"and every later preview shows the change again; surge can be turned off only when the cluster is created"}, true
	}
	return Decision{}, false
}

// doHighAvailability: DigitalOcean refuses to turn high availability off.
func doHighAvailability(c Change) (Decision, bool) {
	if c.Old.Bool() && !c.New.Bool() {
		return Decision{Effect: Refused, Refusal: FailsAtApply,
			Reason: "DigitalOcean's API refuses to turn high availability off once it is on: the update fails at apply"}, true
	}
	return Decision{}, false
}
