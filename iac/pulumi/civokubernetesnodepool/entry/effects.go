package entry

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/civoeffects"
)

// Effects is what changing each field of the kind's manifest does, read from the pinned
// provider's source; the cloud's shared facts (types, sources, reasons) are in pkg/change/effects.
// componentkind.Program names the table after the kind and builds it.
func Effects() *effects.Table {
	// Civo names a pool by its id, and renames none.
	pool := &effects.Table{Pools: effects.PoolMoves{Cloud: "Civo"}, Types: civoeffects.CivoPoolTypes, Rows: []effects.Row{
		{Path: "spec.nodePoolName", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "node_pool_name", Effect: effects.Replace,
			Reason: "the name is the pool's id in its cluster and Civo does not rename pools: the plugin creates a pool of " +
				"the new name, then deletes the old one", Rollout: "spec.rollout"},
		{Path: "spec.cluster", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "cluster_id", Effect: effects.Replace,
			Reason: "a pool cannot move between clusters: the plugin creates the pool in the new cluster, then deletes the old one"},
		{Path: "spec.region", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "region", Effect: effects.Refused, Refusal: effects.FailsAtApply,
			Reason: "a pool lives in its cluster's region, and the cluster does not move: the plugin would create the replacement " +
				"pool in the new region, where Civo has no such cluster, and the create fails (404); nothing changes. The region " +
				"must stay the cluster's"},
		{Path: "spec.size", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "size", Effect: effects.Replace, Reason: civoeffects.CivoPoolRecreated,
			Rollout: "spec.rollout"},
		{Path: "spec.nodeCount", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "node_count", Effect: effects.Update,
			Reason: "the plugin scales the pool in place (Civo's pool update, count) and waits until the nodes run",
			When:   effects.IgnoredUnder("with autoScale the Civo cluster autoscaler owns the node count and the plugin leaves it alone", v1.CivoKubernetesNodePoolSpecFieldAutoScale)},
		{Path: "spec.autoScale", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "auto_scale", Effect: effects.Update,
			Reason: "changes only whether the plugin leaves the node count to the autoscaler; nothing is sent to Civo"},
		{Path: "spec.minNodes", Resource: effects.NodePool, Effect: effects.Ignored,
			Reason: "Civo keeps no autoscaling bounds on a pool; they are checked here and set on the cluster autoscaler (its --nodes flag)"},
		{Path: "spec.maxNodes", Resource: effects.NodePool, Effect: effects.Ignored,
			Reason: "Civo keeps no autoscaling bounds on a pool; they are checked here and set on the cluster autoscaler (its --nodes flag)"},
		{Path: "spec.labels", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "labels", Effect: effects.Update,
			Reason: "the plugin sends the whole label set and Civo updates the pool's nodes in place; removing every label " +
				"sends an empty set, which clears them"},
		{Path: "spec.taints", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "taint", Effect: effects.Update,
			Reason: "the plugin sends the whole taint list and Civo updates the pool's nodes in place; removing every taint " +
				"sends an empty list, which clears them"},
		{Path: "spec.publicIpNodePool", Resource: effects.NodePool, Attribute: civoeffects.CivoPlugin + "public_ip_node_pool", Effect: effects.Replace,
			Reason: civoeffects.CivoPoolRecreated, Rollout: "spec.rollout"},
		{Path: "spec.waitTimeoutMinutes", Resource: effects.NodePool, Effect: effects.Ignored,
			Reason: "bounds how long the plugin waits for the pool's nodes in later changes (Pulumi's custom timeouts); nothing is sent to Civo"},
	}}
	pool.Rows = append(pool.Rows, civoeffects.CivoRenamed(effects.MetadataRows("", "", "Civo node pools have no tags; nothing is sent"),
		v1.CivoKubernetesNodePoolSpecFieldNodePoolName, "pool")...)
	pool.Rows = append(pool.Rows, effects.ProviderRows("apiToken", "apiUrl")...)
	pool.Rows = append(pool.Rows, civoeffects.CivoDefaultRegion)
	// The pool is this repository's own resource: its facts are the plugin's Diff, not a Terraform
	// schema (iac/pulumi/civokubernetesnodepool/poolresource's tests hold each against it).
	pool.Attributes = effects.Facts(civoeffects.CivoPlugin, civoeffects.CivoPluginSource, map[string]string{
		"cluster_id": "required forcenew", "node_pool_name": "required forcenew", "region": "optional forcenew",
		"size": "required forcenew", "node_count": "optional", "auto_scale": "optional", "labels": "optional",
		"taint": "optional", "public_ip_node_pool": "optional forcenew",
	})
	effects.Wire(pool.Attributes, civoeffects.CivoPlugin+"labels", `pkg/cloud/civo/pools sends the labels as a pointer to a map: "labels": {} clears them, `+
		"which civogo's own KubernetesClusterPoolUpdateConfig (omitempty) cannot")
	pool.Rows = append(pool.Rows, effects.RolloutRow("spec.rollout"))
	return pool
}
