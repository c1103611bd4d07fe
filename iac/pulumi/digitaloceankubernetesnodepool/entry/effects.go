package entry

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/doeffects"
)

// Effects is what changing each field of the kind's manifest does, read from the pinned
// provider's source; the cloud's shared facts (types, sources, reasons) are in pkg/change/effects.
// componentkind.Program names the table after the kind and builds it.
func Effects() *effects.Table {
	pool := &effects.Table{Pools: doeffects.DOPoolMoves, Types: doeffects.DOPoolTypes, Rows: []effects.Row{
		{Path: "spec.nodePoolName", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "name", Effect: effects.Update, Reason: "DigitalOcean renames the pool in place"},
		{Path: "spec.cluster", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "cluster_id", Effect: effects.Replace, Reason: "a pool cannot move between clusters: " + doeffects.DOPoolReplaced},
		{Path: "spec.size", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "size", Effect: effects.Replace, Reason: "the droplet size is fixed: " + doeffects.DOPoolReplaced,
			Rollout: "spec.rollout"},
		{Path: "spec.nodeCount", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "node_count", Effect: effects.Update,
			Reason: "DigitalOcean adds or removes nodes", When: effects.IgnoredUnder(doeffects.DONodeCountAutoscaled, v1.DigitalOceanKubernetesNodePoolSpecFieldAutoScale)},
		{Path: "spec.autoScale", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "auto_scale", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place"},
		{Path: "spec.minNodes", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "min_nodes", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place"},
		{Path: "spec.maxNodes", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "max_nodes", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place"},
		{Path: "spec.labels", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "labels", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place",
			Removed: doeffects.DOLabelsCleared, Rollout: "spec.rollout"},
		{Path: "spec.taints", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "taint", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place"},
		{Path: "spec.tags", Resource: effects.NodePool, Attribute: doeffects.DONodePool + "tags", Effect: effects.Update, Reason: "DigitalOcean updates the pool in place"},
	}}
	pool.Rows = append(pool.Rows, effects.MetadataRows(effects.NodePool, doeffects.DONodePool+"tags", "the derived tags change; DigitalOcean updates the pool in place")...)
	pool.Rows = append(pool.Rows, effects.ProviderRows("apiToken", "apiUrl")...)
	pool.Attributes = effects.Facts(doeffects.DONodePool, doeffects.DOPoolSource, map[string]string{
		"cluster_id": "required forcenew", "name": "required", "size": "required forcenew", "node_count": "optional",
		"auto_scale": "optional", "min_nodes": "optional", "max_nodes": "optional", "tags": "optional", "labels": "optional",
		"taint": "optional",
	})
	effects.Wire(pool.Attributes, doeffects.DONodePool+"labels", doeffects.DOLabelsWire)
	// resourceDigitalOceanKubernetesNodePoolRead sets node_count only when the configuration set
	// it, which an import has not: the live count is in actual_node_count.
	pool.ReadBack = map[string]string{"nodeCount": "actualNodeCount"}
	pool.Rows = append(pool.Rows, effects.RolloutRow("spec.rollout"))
	return pool
}
