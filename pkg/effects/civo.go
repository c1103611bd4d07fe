package effects

import (
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/clusterplane/clusterplane/pkg/plugin"
)

// The Civo Terraform resources, as change-effects.json names them.
const (
	civoCluster  = "civo_kubernetes_cluster."
	civoFirewall = "civo_firewall."
	// civoPlugin is the Civo node pool this repository's plugin manages (clusterplane:civo:NodePool),
	// its attributes named as Terraform would name them.
	civoPlugin = "clusterplane_civo_node_pool."
)

var (
	civoTypes = map[Role]string{
		Cluster:  "civo:index/kubernetesCluster:KubernetesCluster",
		Firewall: "civo:index/firewall:Firewall",
		Provider: "pulumi:providers:civo",
	}
	civoPoolTypes = map[Role]string{
		NodePool: plugin.CivoNodePool,
		Provider: "pulumi:providers:clusterplane",
	}
)

// Civo's resources have no replace-on-change field: what cannot change fails, or silently does
// nothing. Both are refused here so that `diff` stops them before a deployment does.
const (
	civoImmutable = "the Civo provider rejects the change at preview (the field is immutable); " +
		"to change it, create a new cluster from a new manifest and move the workloads"
	civoFailsAtApply = "the Civo provider has no way to change it and fails at apply, after the preview " +
		"looked fine; create a new one from a new manifest instead"
	civoNoOp = "the Civo provider accepts the change but does not apply it, so the cloud and the manifest " +
		"disagree from then on; create a new one from a new manifest instead"
	civoUpdated = "Civo updates it on the running cluster"
)

// Where the Civo facts are read: terraform-provider-civo v1.1.4 (bundled by pulumi-civo 2.4.8) and
// the civogo it pins, v0.3.89.
const (
	civoClusterSource = "terraform-provider-civo v1.1.4 civo/kubernetes/resource_kubernetes_cluster.go " +
		"ResourceKubernetesCluster, customizeDiffKubernetesCluster, resourceKubernetesClusterUpdate"
	civoFirewallSource = "terraform-provider-civo v1.1.4 civo/firewall/resource_firewall.go ResourceFirewall, resourceFirewallUpdate"
	civoPluginSource   = "pkg/civopoolresource Diff and pkg/civopool Update (this repository's plugin, over civogo v0.3.89)"
	// civoPoolRecreated: the plugin deletes first, because a pool's name is its id in the cluster.
	civoPoolRecreated = "Civo cannot change it on a pool: the plugin deletes the pool, then creates it anew (its name is its " +
		"id in the cluster, so the two cannot exist at once) and the pool has no nodes in between; to keep the capacity, " +
		"add a pool under a new name first, move the workloads, then remove the old one"
)

// CivoCluster is the effects table of a CivoKubernetesCluster.
func CivoCluster() *Table {
	cluster := &Table{
		Name:      "CivoKubernetesCluster",
		Types:     civoTypes,
		Protected: []Role{Cluster},
		Rows: []Row{
			{Path: "spec.clusterName", Resource: Cluster, Attribute: civoCluster + "name", Effect: Update, Reason: "Civo renames the cluster in place"},
			{Path: "spec.region", Resource: Cluster, Attribute: civoCluster + "region", Effect: Refused, Refusal: FailsAtApply,
				Reason: "the Civo provider does not move a cluster: it keeps it where it is and looks for it in the new region from then on; " +
					"create a new cluster from a new manifest instead"},
			{Path: "spec.kubernetesVersion", Resource: Cluster, Attribute: civoCluster + "kubernetes_version", Effect: Update,
				Reason: "Civo upgrades the cluster in place to the new version", When: civoVersion},
			{Path: "spec.clusterType", Resource: Cluster, Attribute: civoCluster + "cluster_type", Effect: Refused, Refusal: FailsAtPreview,
				// Seen on the pinned plugin (e2e effects walk): the preview fails on the version, whose
				// format belongs to the old type, before any word about the type itself.
				Reason: "the Civo provider rejects it at preview, first for the kubernetesVersion, whose format belongs to the old type " +
					"(1.30.5-k3s1 against talos-v1.5.0); a cluster of another type is a new cluster: create one from a new manifest " +
					"and move the workloads"},
			{Path: "spec.cni", Resource: Cluster, Attribute: civoCluster + "cni", Effect: Refused, Refusal: FailsAtPreview, Reason: civoImmutable},
			{Path: "spec.applications", Resource: Cluster, Attribute: civoCluster + "applications", Effect: Refused, Refusal: FailsAtPreview,
				Reason: "the Civo provider rejects the change at preview (applications are installed at creation only); install more with the Civo CLI or Helm"},
			{Path: "spec.network", Resource: Cluster, Attribute: civoCluster + "network_id", Effect: Refused, Refusal: FailsAtApply,
				Reason: "a cluster cannot move between networks: " + civoFailsAtApply},
			{Path: "spec.firewall", Resource: Cluster, Attribute: civoCluster + "firewall_id", Effect: Update,
				Reason: "Civo moves the cluster behind the other firewall in place; a firewall the module created is deleted once unused"},
			{Path: "spec.apiServerAllowedCidrs", Resource: Firewall, Attribute: civoFirewall + "ingress_rule", Effect: Update,
				Reason: "Civo rewrites the created firewall's rules in place"},
			{Path: "spec.defaultNodePool.size", Resource: Cluster, Attribute: civoCluster + "pools.size", Effect: Refused, Refusal: FailsAtApply,
				Reason: "a pool's instance size is fixed: " + civoFailsAtApply + " (add a CivoKubernetesNodePool of the new size and move the workloads)"},
			{Path: "spec.defaultNodePool.nodeCount", Resource: Cluster, Attribute: civoCluster + "pools.node_count", Effect: Update,
				Reason: "Civo adds or removes nodes of the default pool"},
			{Path: "spec.defaultNodePool.labels", Resource: Cluster, Attribute: civoCluster + "pools.labels", Effect: Refused, Refusal: Invalid,
				Reason: "the pinned Civo provider drops default-pool labels (civo/terraform-provider-civo#380) and never reads them back; put labels on a CivoKubernetesNodePool"},
			{Path: "spec.defaultNodePool.taints", Resource: Cluster, Attribute: civoCluster + "pools.taint", Effect: Refused, Refusal: Invalid,
				Reason: "the pinned Civo provider drops default-pool taints (civo/terraform-provider-civo#380) and never reads them back; put taints on a CivoKubernetesNodePool"},
			{Path: "spec.defaultNodePool.publicIpNodePool", Resource: Cluster, Attribute: civoCluster + "pools.public_ip_node_pool", Effect: Refused, Refusal: NotApplied, Reason: civoNoOp},
			{Path: "spec.tags", Resource: Cluster, Attribute: civoCluster + "tags", Effect: Update, Reason: civoUpdated},
			protectionRow(),
		},
	}
	cluster.Rows = append(cluster.Rows, civoRenamed(metadataRows(Cluster, civoCluster+"tags", "the derived tags change; "+civoUpdated),
		"clusterName", "cluster (and its firewall)")...)
	cluster.Rows = append(cluster.Rows, providerRows("apiToken", "apiUrl")...)
	cluster.Rows = append(cluster.Rows, civoDefaultRegion)
	cluster.Attributes = merge(
		facts(civoCluster, civoClusterSource, map[string]string{
			"name": "optional computed", "region": "optional computed", "network_id": "optional computed",
			"kubernetes_version": "optional computed", "cni": "optional computed", "cluster_type": "optional computed",
			"tags": "optional", "applications": "optional", "firewall_id": "required", "write_kubeconfig": "optional",
			"pools": "required", "pools.size": "required", "pools.node_count": "required", "pools.public_ip_node_pool": "optional computed",
			// Not sent (the spec refuses them, civo#380), but rows name them.
			"pools.labels": "optional", "pools.taint": "optional",
		}),
		facts(civoFirewall, civoFirewallSource, map[string]string{
			"name": "required", "network_id": "optional computed forcenew", "region": "optional computed",
			"create_default_rules": "optional forcenew", "ingress_rule": "optional computed", "egress_rule": "optional computed",
		}))
	constant(cluster.Attributes, civoCluster+"write_kubeconfig", "always true: without it the provider leaves the kubeconfig out of state")
	constant(cluster.Attributes, civoCluster+"pools", "the module always sends exactly one pool; its fields have rows")
	constant(cluster.Attributes, civoFirewall+"create_default_rules", "always false: Civo's default rules open the Kubernetes API to everyone")
	constant(cluster.Attributes, civoFirewall+"egress_rule", "a module constant: all egress allowed")
	constant(cluster.Attributes, civoFirewall+"name", "follows spec.clusterName, which updates in place")
	constant(cluster.Attributes, civoFirewall+"network_id", "follows spec.network, which is refused")
	constant(cluster.Attributes, civoFirewall+"region", "follows spec.region, which is refused")
	wire(cluster.Attributes, civoCluster+"tags", "one space-separated string; civogo KubernetesClusterConfig tags is omitempty, so an empty "+
		"string never clears them; the module always sends the derived tags, so the string is never empty")
	return build(cluster)
}

// CivoNodePool is the effects table of a CivoKubernetesNodePool.
func CivoNodePool() *Table {
	pool := &Table{
		Name:  "CivoKubernetesNodePool",
		Types: civoPoolTypes,
		Rows: []Row{
			{Path: "spec.nodePoolName", Resource: NodePool, Attribute: civoPlugin + "node_pool_name", Effect: Replace,
				Reason: "the name is the pool's id in its cluster and Civo does not rename pools: the plugin creates a pool of " +
					"the new name, then deletes the old one"},
			{Path: "spec.cluster", Resource: NodePool, Attribute: civoPlugin + "cluster_id", Effect: Replace,
				Reason: "a pool cannot move between clusters: the plugin creates the pool in the new cluster, then deletes the old one"},
			{Path: "spec.region", Resource: NodePool, Attribute: civoPlugin + "region", Effect: Refused, Refusal: FailsAtApply,
				Reason: "a pool lives in its cluster's region, and the cluster does not move: the plugin would create the replacement " +
					"pool in the new region, where Civo has no such cluster, and the create fails (404); nothing changes. The region " +
					"must stay the cluster's"},
			{Path: "spec.size", Resource: NodePool, Attribute: civoPlugin + "size", Effect: Replace, Reason: civoPoolRecreated},
			{Path: "spec.nodeCount", Resource: NodePool, Attribute: civoPlugin + "node_count", Effect: Update,
				Reason: "the plugin scales the pool in place (Civo's pool update, count) and waits until the nodes run",
				When:   ignoredUnder("with autoScale the Civo cluster autoscaler owns the node count and the plugin leaves it alone", "autoScale")},
			{Path: "spec.autoScale", Resource: NodePool, Attribute: civoPlugin + "auto_scale", Effect: Update,
				Reason: "changes only whether the plugin leaves the node count to the autoscaler; nothing is sent to Civo"},
			{Path: "spec.minNodes", Resource: NodePool, Effect: Ignored,
				Reason: "Civo keeps no autoscaling bounds on a pool; they are checked here and set on the cluster autoscaler (its --nodes flag)"},
			{Path: "spec.maxNodes", Resource: NodePool, Effect: Ignored,
				Reason: "Civo keeps no autoscaling bounds on a pool; they are checked here and set on the cluster autoscaler (its --nodes flag)"},
			{Path: "spec.labels", Resource: NodePool, Attribute: civoPlugin + "labels", Effect: Update,
				Reason: "the plugin sends the whole label set and Civo updates the pool's nodes in place; removing every label " +
					"sends an empty set, which clears them"},
			{Path: "spec.taints", Resource: NodePool, Attribute: civoPlugin + "taint", Effect: Update,
				Reason: "the plugin sends the whole taint list and Civo updates the pool's nodes in place; removing every taint " +
					"sends an empty list, which clears them"},
			{Path: "spec.publicIpNodePool", Resource: NodePool, Attribute: civoPlugin + "public_ip_node_pool", Effect: Replace,
				Reason: civoPoolRecreated},
			{Path: "spec.waitTimeoutMinutes", Resource: NodePool, Effect: Ignored,
				Reason: "bounds how long the plugin waits for the pool's nodes in later changes (Pulumi's custom timeouts); nothing is sent to Civo"},
		},
	}
	pool.Rows = append(pool.Rows, civoRenamed(metadataRows("", "", "Civo node pools have no tags; nothing is sent"),
		"nodePoolName", "pool")...)
	pool.Rows = append(pool.Rows, providerRows("apiToken", "apiUrl")...)
	pool.Rows = append(pool.Rows, civoDefaultRegion)
	// The pool is this repository's own resource: its facts are the plugin's Diff, not a Terraform
	// schema (pkg/civopoolresource's tests hold each against it).
	pool.Attributes = facts(civoPlugin, civoPluginSource, map[string]string{
		"cluster_id": "required forcenew", "node_pool_name": "required forcenew", "region": "optional forcenew",
		"size": "required forcenew", "node_count": "optional", "auto_scale": "optional", "labels": "optional",
		"taint": "optional", "public_ip_node_pool": "optional forcenew",
	})
	wire(pool.Attributes, civoPlugin+"labels", `pkg/civopool sends the labels as a pointer to a map: "labels": {} clears them, `+
		"which civogo's own KubernetesClusterPoolUpdateConfig (omitempty) cannot")
	return build(pool)
}

// civoDefaultRegion is the provider config's default region, which no Clusterplane resource uses.
var civoDefaultRegion = Row{Path: "providerConfig.defaultRegion", Resource: Provider, Effect: Ignored,
	Reason: "every Clusterplane resource carries its own region (spec.region), which the module gives the provider; the " +
		"default region is for resources without one, and the stack has none"}

// civoRenamed refines the metadata.name row of a Civo kind: the renamed stack creates its resources
// anew before it deletes the old ones, and Civo refuses a second cluster, firewall or pool of the
// same name (what field names in the cloud). So a rename replaces only when field changes too.
func civoRenamed(rows []Row, field, what string) []Row {
	for i, row := range rows {
		if row.Path != "metadata.name" {
			continue
		}
		rows[i].When = func(c Change) (Decision, bool) {
			if stringAt(c.OldSpec, field) != stringAt(c.NewSpec, field) {
				return Decision{}, false
			}
			return Decision{Effect: Refused, Refusal: FailsAtApply, Reason: "every Pulumi resource of the stack is named after " +
				"metadata.name, so a rename creates the " + what + " anew before deleting the old one, and Civo refuses a " +
				"second one of the same " + field + ": the create fails and nothing changes. Change " + field + " too to " +
				"replace it, or keep the name"}, true
		}
	}
	return rows
}

// civoVersion: the module ignores version changes of talos clusters, because the pinned provider
// reads back the Kubernetes version instead of the talos one (civo/terraform-provider-civo#365),
// and refuses a lower version: Civo offers upgrades only (its API names the one a cluster can
// take, civogo KubernetesCluster.UpgradeAvailableTo), while the provider checks the version's
// format and nothing else (customizeDiffKubernetesCluster) and would send the downgrade.
func civoVersion(c Change) (Decision, bool) {
	fd := c.NewSpec.Descriptor().Fields().ByJSONName("clusterType")
	if fd != nil && fd.Enum() != nil {
		if v := fd.Enum().Values().ByNumber(c.NewSpec.Get(fd).Enum()); v != nil && v.Name() == "talos" {
			return Decision{Effect: Ignored, Reason: "for talos clusters the module leaves the version alone after creation: " +
				"the pinned Civo provider reads back the Kubernetes version instead of the talos one " +
				"(civo/terraform-provider-civo#365), so an update would fail; upgrade talos with the Civo CLI or dashboard"}, true
		}
	}
	if less, ok := kubeversion.Less(c.New.String(), c.Old.String()); ok && less {
		return Decision{Effect: Refused, Refusal: FailsAtApply, Reason: "Civo upgrades clusters but cannot take one down a " +
			"version, and the pinned provider checks only the version's format, so the lower version is sent and Civo's API " +
			"fails the update; keep the version the cluster runs"}, true
	}
	return Decision{}, false
}
