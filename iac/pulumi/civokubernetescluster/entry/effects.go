package entry

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/civoeffects"
)

// Effects is what changing each field of the kind's manifest does, read from the pinned
// provider's source; the cloud's shared facts (types, sources, reasons) are in pkg/change/effects.
// componentkind.Program names the table after the kind and builds it.
func Effects() *effects.Table {
	cluster := &effects.Table{Types: civoeffects.CivoTypes, Protected: []effects.Role{effects.Cluster}, Rows: []effects.Row{
		{Path: "spec.clusterName", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "name", Effect: effects.Update, Reason: "Civo renames the cluster in place"},
		{Path: "spec.region", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "region", Effect: effects.Refused, Refusal: effects.FailsAtApply,
			Reason: "the Civo provider does not move a cluster: it keeps it where it is and looks for it in the new region from then on; " +
				"create a new cluster from a new manifest instead"},
		{Path: "spec.kubernetesVersion", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "kubernetes_version", Effect: effects.Update,
			Reason: "Civo upgrades the cluster in place to the new version", When: civoeffects.CivoVersion},
		{Path: "spec.clusterType", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "cluster_type", Effect: effects.Refused, Refusal: effects.FailsAtPreview,
			// Seen on the pinned plugin (e2e effects walk): the preview fails on the version, whose
			// format belongs to the old type, before any word about the type itself.
			Reason: "the Civo provider rejects it at preview, first for the kubernetesVersion, whose format belongs to the old type " +
				"(1.30.5-k3s1 against talos-v1.5.0); a cluster of another type is a new cluster: create one from a new manifest " +
				"and move the workloads"},
		{Path: "spec.cni", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "cni", Effect: effects.Refused, Refusal: effects.FailsAtPreview, Reason: civoeffects.CivoImmutable},
		{Path: "spec.applications", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "applications", Effect: effects.Refused, Refusal: effects.FailsAtPreview,
			Reason: "the Civo provider rejects the change at preview (applications are installed at creation only); install more with the Civo CLI or Helm"},
		{Path: "spec.network", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "network_id", Effect: effects.Refused, Refusal: effects.FailsAtApply,
			Reason: "a cluster cannot move between networks: " + civoeffects.CivoFailsAtApply,
			// The cluster's and the firewall's network_id are Optional and Computed
			// (resource_kubernetes_cluster.go, resource_firewall.go): unsent, both stay.
			Removed: civoeffects.CivoKeptWhenUnsent("network_id", "the cluster stays in its network; write the network's id back "+
				"(the stack's network_id output)")},
		{Path: "spec.firewall", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "firewall_id", Effect: effects.Update,
			Reason: "Civo moves the cluster behind the other firewall in place; a firewall the module created is deleted once unused"},
		{Path: "spec.apiServerAllowedCidrs", Resource: effects.Firewall, Attribute: civoeffects.CivoFirewall + "ingress_rule", Effect: effects.Update,
			Reason: "Civo rewrites the created firewall's rules in place"},
		{Path: "spec.defaultNodePool.size", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "pools.size", Effect: effects.Refused, Refusal: effects.FailsAtApply,
			Reason: "a pool's instance size is fixed: " + civoeffects.CivoFailsAtApply + " (add a CivoKubernetesNodePool of the new size and move the workloads)"},
		{Path: "spec.defaultNodePool.nodeCount", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "pools.node_count", Effect: effects.Update,
			Reason: "Civo adds or removes nodes of the default pool"},
		{Path: "spec.defaultNodePool.labels", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "pools.labels", Effect: effects.Refused, Refusal: effects.Invalid,
			Reason: "the pinned Civo provider drops default-pool labels (civo/terraform-provider-civo#380) and never reads them back; put labels on a CivoKubernetesNodePool"},
		{Path: "spec.defaultNodePool.taints", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "pools.taint", Effect: effects.Refused, Refusal: effects.Invalid,
			Reason: "the pinned Civo provider drops default-pool taints (civo/terraform-provider-civo#380) and never reads them back; put taints on a CivoKubernetesNodePool"},
		{Path: "spec.defaultNodePool.publicIpNodePool", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "pools.public_ip_node_pool", Effect: effects.Refused, Refusal: effects.NotApplied, Reason: civoeffects.CivoNoOp},
		{Path: "spec.tags", Resource: effects.Cluster, Attribute: civoeffects.CivoCluster + "tags", Effect: effects.Update, Reason: civoeffects.CivoUpdated},
		effects.ProtectionRow(),
	}}
	cluster.Rows = append(cluster.Rows, civoeffects.CivoRenamed(effects.MetadataRows(effects.Cluster, civoeffects.CivoCluster+"tags", "the derived tags change; "+civoeffects.CivoUpdated),
		v1.CivoKubernetesClusterSpecFieldClusterName, "cluster (and its firewall)")...)
	cluster.Rows = append(cluster.Rows, effects.ProviderRows("apiToken", "apiUrl")...)
	cluster.Rows = append(cluster.Rows, civoeffects.CivoDefaultRegion)
	cluster.Attributes = effects.Merge(
		effects.Facts(civoeffects.CivoCluster, civoeffects.CivoClusterSource, map[string]string{
			"name": "optional computed", "region": "optional computed", "network_id": "optional computed",
			"kubernetes_version": "optional computed", "cni": "optional computed", "cluster_type": "optional computed",
			"tags": "optional", "applications": "optional", "firewall_id": "required", "write_kubeconfig": "optional",
			"pools": "required", "pools.size": "required", "pools.node_count": "required", "pools.public_ip_node_pool": "optional computed",
			// Not sent (the spec refuses them, civo#380), but rows name them.
			"pools.labels": "optional", "pools.taint": "optional",
		}),
		effects.Facts(civoeffects.CivoFirewall, civoeffects.CivoFirewallSource, map[string]string{
			"name": "required", "network_id": "optional computed forcenew", "region": "optional computed",
			"create_default_rules": "optional forcenew", "ingress_rule": "optional computed", "egress_rule": "optional computed",
		}))
	effects.Constant(cluster.Attributes, civoeffects.CivoCluster+"write_kubeconfig", "always true: without it the provider leaves the kubeconfig out of state")
	effects.Constant(cluster.Attributes, civoeffects.CivoCluster+"pools", "the module always sends exactly one pool; its fields have rows")
	effects.Constant(cluster.Attributes, civoeffects.CivoFirewall+"create_default_rules", "always false: Civo's default rules open the Kubernetes API to everyone")
	effects.Constant(cluster.Attributes, civoeffects.CivoFirewall+"egress_rule", "a module constant: all egress allowed")
	effects.Constant(cluster.Attributes, civoeffects.CivoFirewall+"name", "follows spec.clusterName, which updates in place")
	effects.Constant(cluster.Attributes, civoeffects.CivoFirewall+"network_id", "follows spec.network, which is refused")
	effects.Constant(cluster.Attributes, civoeffects.CivoFirewall+"region", "follows spec.region, which is refused")
	effects.Wire(cluster.Attributes, civoeffects.CivoCluster+"tags", "one space-separated string; civogo KubernetesClusterConfig tags is omitempty, so an empty "+
		"string never clears them; the module always sends the derived tags, so the string is never empty")
	// resourceKubernetesClusterRead (civo/kubernetes/resource_kubernetes_cluster.go) reads
	// write_kubeconfig from the state to decide whether to keep the kubeconfig, and never sets it:
	// an import (of a pending create) leaves it at its default, false, though the cloud never had it.
	cluster.NeverReadBack = map[string]bool{"writeKubeconfig": true}
	return cluster
}
