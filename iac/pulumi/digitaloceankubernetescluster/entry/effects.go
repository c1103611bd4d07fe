package entry

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/doeffects"
)

// Effects is what changing each field of the kind's manifest does, read from the pinned
// provider's source; the cloud's shared facts (types, sources, reasons) are in pkg/change/effects.
// componentkind.Program names the table after the kind and builds it.
func Effects() *effects.Table {
	cluster := &effects.Table{Pools: doeffects.DOPoolMoves, Types: doeffects.DOTypes, Protected: []effects.Role{effects.Cluster}, Rows: []effects.Row{
		{Path: "spec.clusterName", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "name", Effect: effects.Update, Reason: "DigitalOcean renames the cluster in place"},
		{Path: "spec.region", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "region", Effect: effects.Replace, Reason: "a cluster cannot move between regions: " + doeffects.DOClusterReplaced},
		{Path: "spec.kubernetesVersion", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "version", Effect: effects.Update,
			Reason: "the next minor version, or a later patch, upgrades the cluster in place; the module checks at preview " +
				"that a minor upgrade starts from the latest patch of the running minor, as DigitalOcean requires",
			When: doeffects.DOVersion},
		{Path: "spec.vpc", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "vpc_uuid", Effect: effects.Replace, Reason: "a cluster cannot move between VPCs: " + doeffects.DOClusterReplaced,
			Removed: doeffects.DOKeptWhenUnsent("vpc_uuid", "write the VPC's id back (the stack's vpc_uuid output)")},
		{Path: "spec.highlyAvailable", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "ha", Effect: effects.Update,
			Reason: "turning high availability on upgrades the control plane in place", When: doeffects.DOHighAvailability},
		{Path: "spec.autoUpgrade", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "auto_upgrade", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.disableSurgeUpgrade", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "surge_upgrade", Effect: effects.Update,
			Reason: "turning surge upgrades back on updates the cluster in place", When: doeffects.DOSurge, Negated: true},
		{Path: "spec.maintenanceWindow", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "maintenance_policy", Effect: effects.Update,
			Reason: doeffects.DOUpdated + "; the module always sends a window, " + doeffects.DigitalOceanDefaultMaintenanceWindow + " when the field is absent, " +
				"so removing it moves the window there (the provider keeps an unsent policy as it was: it is Optional and Computed)"},
		{Path: "spec.registryIntegration", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "registry_integration", Effect: effects.Update,
			Reason: "DigitalOcean connects or disconnects the registry in place"},
		{Path: "spec.controlPlaneFirewallAllowedAddresses", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "control_plane_firewall", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.clusterSubnet", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "cluster_subnet", Effect: effects.Replace, Reason: "the pod network is fixed at creation: " + doeffects.DOClusterReplaced,
			Removed: doeffects.DOKeptWhenUnsent("cluster_subnet", "write the subnet the cluster has back")},
		{Path: "spec.serviceSubnet", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "service_subnet", Effect: effects.Replace, Reason: "the service network is fixed at creation: " + doeffects.DOClusterReplaced,
			Removed: doeffects.DOKeptWhenUnsent("service_subnet", "write the subnet the cluster has back")},
		{Path: "spec.kubeconfigExpireSeconds", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "kubeconfig_expire_seconds", Effect: effects.Update,
			Reason: "recorded in state only; it applies the next time the provider fetches credentials, after the current ones expire"},
		{Path: "spec.destroyAllAssociatedResources", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "destroy_all_associated_resources", Effect: effects.Update,
			Reason: "recorded in state only; it applies when the cluster is destroyed"},
		{Path: "spec.clusterAutoscaler", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "cluster_autoscaler_configuration", Effect: effects.Update,
			Reason: doeffects.DOUpdated + "; a removed setting goes back to DigitalOcean's default (the provider sends it empty: expandCAConfigOptsForUpdate)"},
		{Path: "spec.defaultNodePool.nodePoolName", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.name", Effect: effects.Update, Reason: "DigitalOcean renames the pool in place"},
		{Path: "spec.defaultNodePool.size", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.size", Effect: effects.Replace,
			Reason:  "the default pool's droplet size is fixed, and the provider replaces the whole cluster, not just the pool: " + doeffects.DOClusterReplaced,
			Rollout: "spec.defaultNodePool.rollout"},
		{Path: "spec.defaultNodePool.nodeCount", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.node_count", Effect: effects.Update,
			Reason: "DigitalOcean adds or removes nodes", When: effects.IgnoredUnder(doeffects.DONodeCountAutoscaled,
				v1.DigitalOceanKubernetesClusterSpecFieldDefaultNodePool, v1.DigitalOceanKubernetesClusterDefaultNodePoolFieldAutoScale)},
		{Path: "spec.defaultNodePool.autoScale", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.auto_scale", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.defaultNodePool.minNodes", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.min_nodes", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.defaultNodePool.maxNodes", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.max_nodes", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.defaultNodePool.labels", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.labels", Effect: effects.Update, Reason: doeffects.DOUpdated,
			Removed: doeffects.DOLabelsCleared, Rollout: "spec.defaultNodePool.rollout"},
		{Path: "spec.defaultNodePool.taints", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.taint", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.defaultNodePool.tags", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "node_pool.tags", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.tags", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "tags", Effect: effects.Update, Reason: doeffects.DOUpdated},
		{Path: "spec.routingAgent", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "routing_agent", Effect: effects.Update, Reason: doeffects.DOUpdated,
			Removed: doeffects.DOComponentKept("routing_agent", "routingAgent")},
		{Path: "spec.nvidiaGpuDevicePlugin", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "nvidia_gpu_device_plugin", Effect: effects.Update, Reason: doeffects.DOUpdated,
			Removed: doeffects.DOComponentKept("nvidia_gpu_device_plugin", "nvidiaGpuDevicePlugin")},
		{Path: "spec.amdGpuDevicePlugin", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "amd_gpu_device_plugin", Effect: effects.Update, Reason: doeffects.DOUpdated,
			Removed: doeffects.DOComponentKept("amd_gpu_device_plugin", "amdGpuDevicePlugin")},
		{Path: "spec.amdGpuDeviceMetricsExporterPlugin", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "amd_gpu_device_metrics_exporter_plugin",
			Effect: effects.Update, Reason: doeffects.DOUpdated, Removed: doeffects.DOComponentKept("amd_gpu_device_metrics_exporter_plugin", "amdGpuDeviceMetricsExporterPlugin")},
		{Path: "spec.rdmaSharedDevicePlugin", Resource: effects.Cluster, Attribute: doeffects.DOCluster + "rdma_shared_device_plugin", Effect: effects.Update, Reason: doeffects.DOUpdated,
			Removed: doeffects.DOComponentKept("rdma_shared_device_plugin", "rdmaSharedDevicePlugin")},
		effects.ProtectionRow(),
	}}
	cluster.Rows = append(cluster.Rows, effects.MetadataRows(effects.Cluster, doeffects.DOCluster+"tags", "the derived tags change; "+doeffects.DOUpdated)...)
	cluster.Rows = append(cluster.Rows, effects.ProviderRows("apiToken", "apiUrl")...)
	cluster.Rows = append(cluster.Rows, effects.RolloutRow("spec.defaultNodePool.rollout"))
	cluster.Attributes = effects.Facts(doeffects.DOCluster, doeffects.DOClusterSource, map[string]string{
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
	effects.Constant(cluster.Attributes, doeffects.DOCluster+"node_pool", "the module always sends exactly one default pool; its fields have rows")
	effects.Wire(cluster.Attributes, doeffects.DOCluster+"surge_upgrade", "godo v1.172.0 KubernetesClusterUpdateRequest.SurgeUpgrade is a bool with omitempty: "+
		"an update never carries false, while the create request always sends it")
	effects.Wire(cluster.Attributes, doeffects.DOCluster+"tags", "tag.TagsSchema is a set hashed ignoring case (util.HashStringIgnoreCase), and "+
		"godo's update omits an empty list; the module always sends the derived tags, so the list is never empty")
	effects.Wire(cluster.Attributes, doeffects.DOCluster+"ha", "godo v1.172.0 KubernetesClusterCreateRequest.HA has no omitempty: an unset "+
		"highlyAvailable creates a cluster without HA even where DigitalOcean would default to HA")
	effects.Wire(cluster.Attributes, doeffects.DOCluster+"node_pool.labels", doeffects.DOLabelsWire)
	effects.Wire(cluster.Attributes, doeffects.DOCluster+"node_pool.taint", "godo v1.172.0 KubernetesNodePoolUpdateRequest.Taints is a *[]Taint: an empty list is sent and clears the taints")
	// flattenNodePool (kubernetes.go) sets node_pool.node_count only when the configuration set it,
	// which an import has not: the live count is in actual_node_count.
	cluster.ReadBack = map[string]string{"nodePool.nodeCount": "nodePool.actualNodeCount"}
	// resourceDigitalOceanKubernetesClusterRead (resource_kubernetes_cluster.go) sets neither:
	// registry_integration is sent only when its value changes, destroy_all_associated_resources
	// read only at delete.
	cluster.NeverReadBack = map[string]bool{"registryIntegration": true, "destroyAllAssociatedResources": true}
	return cluster
}
