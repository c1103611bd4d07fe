// Package civoeffects holds the facts about Civo's provider and this repository's Civo node-pool
// plugin that both Civo kinds write into their effects tables (pkg/change/effects): resource
// names and types, where each fact was read, and the rules both kinds share. They are Civo's, so
// they sit under its driver; pkg/change computes with the tables and never names a cloud.
package civoeffects

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// The Civo Terraform resources, as change-effects.json names them.
const (
	CivoCluster  = "civo_kubernetes_cluster."
	CivoFirewall = "civo_firewall."
	// CivoPlugin is the Civo node pool this repository's plugin manages (clusterplane:civo:NodePool),
	// its attributes named as Terraform would name them.
	CivoPlugin = "clusterplane_civo_node_pool."
)

var (
	CivoTypes = map[effects.Role]string{
		effects.Cluster:  "civo:index/kubernetesCluster:KubernetesCluster",
		effects.Firewall: "civo:index/firewall:Firewall",
		effects.Provider: "pulumi:providers:civo",
	}
	CivoPoolTypes = map[effects.Role]string{
		effects.NodePool: civo.PluginNodePool,
		effects.Provider: "pulumi:providers:clusterplane",
	}
)

// Civo's resources have no replace-on-change field: what cannot change fails, or silently does
// nothing. Both are refused here so that `diff` stops them before a deployment does.
const (
	CivoImmutable = "the Civo provider rejects the change at preview (the field is immutable); " +
		"to change it, create a new cluster from a new manifest and move the workloads"
	CivoFailsAtApply = "the Civo provider has no way to change it and fails at apply, after the preview " +
		"looked fine; create a new one from a new manifest instead"
	CivoNoOp = "the Civo provider accepts the change but does not apply it, so the cloud and the manifest " +
		"disagree from then on; create a new one from a new manifest instead"
	CivoUpdated = "Civo updates it on the running cluster"
)

// CivoKeptWhenUnsent is what removing a field of an Optional and Computed attribute does: the
// module stops sending it and the provider keeps the value the resource has. instead says what to
// write.
func CivoKeptWhenUnsent(attribute, instead string) *effects.Decision {
	return &effects.Decision{Effect: effects.Refused, Refusal: effects.Kept, Reason: "the provider's " + attribute + " is Optional and Computed: when the " +
		"module stops sending it the provider keeps the value the resource has, so removing the field changes nothing; " + instead}
}

// Where the Civo facts are read: terraform-provider-civo v1.1.4 (bundled by pulumi-civo 2.4.8) and
// the civogo it pins, v0.3.89.
const (
	CivoClusterSource = "terraform-provider-civo v1.1.4 civo/kubernetes/resource_kubernetes_cluster.go " +
		"ResourceKubernetesCluster, customizeDiffKubernetesCluster, resourceKubernetesClusterUpdate"
	CivoFirewallSource = "terraform-provider-civo v1.1.4 civo/firewall/resource_firewall.go ResourceFirewall, resourceFirewallUpdate"
	CivoPluginSource   = "iac/pulumi/civokubernetesnodepool/poolresource Diff and pkg/cloud/civo/pools Update (this repository's plugin, over civogo v0.3.89)"
	// CivoPoolRecreated: the plugin deletes first, because a pool's name is its id in the cluster.
	CivoPoolRecreated = "Civo cannot change it on a pool: the plugin deletes the pool, then creates it anew (its name is its " +
		"id in the cluster, so the two cannot exist at once) and the pool has no nodes in between; to keep the capacity, " +
		"add a pool under a new name first, move the workloads, then remove the old one"
)

// CivoDefaultRegion is the provider config's default region, which no Clusterplane resource uses.
var CivoDefaultRegion = effects.Row{Path: "providerConfig.defaultRegion", Resource: effects.Provider, Effect: effects.Ignored,
	Reason: "every Clusterplane resource carries its own region (spec.region), which the module gives the provider; the " +
		"default region is for resources without one, and the stack has none"}

// CivoRenamed refines the metadata.name row of a Civo kind: the renamed stack creates its resources
// anew before it deletes the old ones, and Civo refuses a second cluster, firewall or pool of the
// same name (what field names in the cloud). So a rename replaces only when field changes too.
func CivoRenamed(rows []effects.Row, field, what string) []effects.Row {
	for i, row := range rows {
		if row.Path != "metadata.name" {
			continue
		}
		rows[i].When = func(c effects.Change) (effects.Decision, bool) {
			// Read by a name the caller passes, as the reason also shows it: each Civo kind passes
			// its API's generated constant (CivoKubernetesClusterSpecFieldClusterName).
			if was, now := c.SpecStrings(field); was != now {
				return effects.Decision{}, false
			}
			return effects.Decision{Effect: effects.Refused, Refusal: effects.FailsAtApply, Reason: "deployed onto the old stack on purpose (--stack and " +
				"--retarget, refused without), a rename creates the " + what + " anew before deleting the old one (every Pulumi resource of the stack is named after " +
				"metadata.name), and Civo refuses a " +
				"second one of the same " + field + ": the create fails and nothing changes; change " + field + " too to " +
				"replace it, or keep the name"}, true
		}
	}
	return rows
}

// CivoVersion: the module ignores version changes of talos clusters, because the pinned provider
// reads back the Kubernetes version instead of the talos one (civo/terraform-provider-civo#365),
// and refuses a lower version: Civo offers upgrades only (its API names the one a cluster can
// take, civogo KubernetesCluster.UpgradeAvailableTo), while the provider checks the version's
// format and nothing else (customizeDiffKubernetesCluster) and would send the downgrade.
func CivoVersion(c effects.Change) (effects.Decision, bool) {
	fd := c.NewSpec.Descriptor().Fields().ByJSONName(kindfield.SpecClusterType)
	if fd != nil && fd.Enum() != nil {
		if v := fd.Enum().Values().ByNumber(c.NewSpec.Get(fd).Enum()); v != nil && v.Name() == "talos" {
			return effects.Decision{Effect: effects.Ignored, Reason: "for talos clusters the module leaves the version alone after creation: " +
				"the pinned Civo provider reads back the Kubernetes version instead of the talos one " +
				"(civo/terraform-provider-civo#365), so an update would fail; upgrade talos with the Civo CLI or dashboard"}, true
		}
	}
	if less, ok := kubeversion.Less(c.New.String(), c.Old.String()); ok && less {
		return effects.Decision{Effect: effects.Refused, Refusal: effects.FailsAtApply, Reason: "Civo upgrades clusters but cannot take one down a " +
			"version, and the pinned provider checks only the version's format, so the lower version is sent and Civo's API " +
			"fails the update; keep the version the cluster runs"}, true
	}
	return effects.Decision{}, false
}
