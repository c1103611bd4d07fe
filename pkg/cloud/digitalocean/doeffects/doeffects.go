// Package doeffects holds the facts about DigitalOcean's provider that both DigitalOcean kinds
// write into their effects tables (pkg/change/effects): resource names and types, where each fact
// was read, and the rules both kinds share. They are DigitalOcean's, so they sit under its driver;
// pkg/change computes with the tables and never names a cloud.
package doeffects

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// The DigitalOcean Terraform resources, as change-effects.json names them.
const (
	DOCluster  = "digitalocean_kubernetes_cluster."
	DONodePool = "digitalocean_kubernetes_node_pool."
)

var (
	DOTypes = map[effects.Role]string{
		effects.Cluster:  "digitalocean:index/kubernetesCluster:KubernetesCluster",
		effects.Provider: "pulumi:providers:digitalocean",
	}
	DOPoolTypes = map[effects.Role]string{
		effects.NodePool: "digitalocean:index/kubernetesNodePool:KubernetesNodePool",
		effects.Provider: "pulumi:providers:digitalocean",
	}
	// DOPoolMoves is how DigitalOcean's pools move in a rotation, for both kinds that hold pools:
	// a pool is renamed in place, and the default pool is the one with dofacts.DefaultPoolTag.
	DOPoolMoves = effects.PoolMoves{Cloud: "DigitalOcean", Renames: true, DefaultPoolTag: dofacts.DefaultPoolTag}
)

const (
	DOClusterReplaced = "DigitalOcean cannot change it on a running cluster, so the provider deletes the cluster " +
		"with every node and workload, its load balancers' addresses and its kubeconfig, and creates a new one"
	DOPoolReplaced = "DigitalOcean cannot change it on a running pool, so the provider deletes the pool with " +
		"its nodes and the pods on them, and creates a new one; the cluster stays"
	DONodeCountAutoscaled = "with autoScale the cluster autoscaler owns the node count; the module ignores " +
		"changes to it so that a deployment never undoes the autoscaler"
	DOUpdated = "DigitalOcean updates it on the running cluster"
)

// Where the DigitalOcean facts are read: terraform-provider-digitalocean v2.75.0 (bundled by
// pulumi-digitalocean 4.57.0) and the godo it vendors, v1.172.0.
const (
	DOClusterSource = "terraform-provider-digitalocean v2.75.0 digitalocean/kubernetes/resource_kubernetes_cluster.go " +
		"ResourceDigitalOceanKubernetesCluster, resourceDigitalOceanKubernetesClusterUpdate"
	DOPoolSource = "terraform-provider-digitalocean v2.75.0 digitalocean/kubernetes/kubernetes.go nodePoolSchema, " +
		"resource_kubernetes_node_pool.go digitaloceanKubernetesNodePoolUpdate"
	DOLabelsWire = "godo v1.172.0 KubernetesNodePoolUpdateRequest.Labels is map[string]string with omitempty: an empty map is never sent"
)

// Removals that cannot be expressed through the pinned DigitalOcean provider.
var (
	DOLabelsCleared = &effects.Decision{Effect: effects.Refused, Refusal: effects.NotApplied, Reason: "the provider's API client leaves an empty label map out of the " +
		"pool update (godo KubernetesNodePoolUpdateRequest labels, omitempty), so the last labels stay on the nodes and " +
		"every later preview shows the change again; keep at least one label (up then sends the whole map, which replaces the pool's), " +
		"or remove the labels in DigitalOcean itself: once the cloud holds none, the manifest without them deploys"}
	DOKeptWhenUnsent = func(attribute, instead string) *effects.Decision {
		return &effects.Decision{Effect: effects.Refused, Refusal: effects.Kept, Reason: "the provider's " + attribute + " is Optional and Computed: when the module " +
			"stops sending it the provider keeps the value the cluster has, so removing the field changes nothing; " + instead}
	}
	DOComponentKept = func(attribute, field string) *effects.Decision {
		return DOKeptWhenUnsent(attribute, "write "+field+": true or false instead")
	}
)

// DigitalOceanDefaultMaintenanceWindow is the window the module sends when a manifest has none:
// the provider keeps an unsent maintenance_policy as it was (Optional and Computed), so an
// explicit default is what makes removing the field take effect.
const DigitalOceanDefaultMaintenanceWindow = "any day at 00:00 UTC"

// DOVersion: the module refuses a version older than the one DigitalOcean runs, because the
// provider would replace the cluster (its ForceNewIfChange on a decrease), and a jump of more than
// one minor version, which DigitalOcean's upgrade API rejects (422 "invalid upgrade path",
// terraform-provider-digitalocean#708 and #887). With autoUpgrade a change within the running
// minor line is left to DigitalOcean.
func DOVersion(c effects.Change) (effects.Decision, bool) {
	newVersion, oldVersion := c.New.String(), c.Old.String()
	if c.NewSpecBool(kindfield.SpecAutoUpgrade) && kubeversion.SameMinor(newVersion, oldVersion) {
		return effects.Decision{Effect: effects.Ignored, Reason: "with autoUpgrade DigitalOcean keeps the patch version of the minor line " +
			"current in the maintenance window; the module leaves it to DigitalOcean"}, true
	}
	if less, ok := kubeversion.Less(newVersion, oldVersion); ok && less {
		return effects.Decision{Effect: effects.Refused, Refusal: effects.FailsAtPreview, Reason: "DigitalOcean cannot downgrade a cluster and the " +
			"provider would replace it, so the module refuses a version older than the one the cluster runs at preview (" +
			DOClusterReplaced + " otherwise)"}, true
	}
	if steps, ok := kubeversion.MinorSteps(oldVersion, newVersion); ok && steps > 1 {
		return effects.Decision{Effect: effects.Refused, Refusal: effects.FailsAtPreview, Reason: "DigitalOcean upgrades one minor version at a " +
			"time, from the latest patch of the running minor, and fails a jump of several minors at apply with 422 invalid " +
			"upgrade path (terraform-provider-digitalocean#708, #887), so the module refuses it at preview. Deploy each " +
			"minor version in turn"}, true
	}
	return effects.Decision{}, false
}

// DOSurge: turning surge upgrades off on a running cluster never reaches DigitalOcean, because
// the provider's API client leaves a false surge_upgrade out of the update request.
func DOSurge(c effects.Change) (effects.Decision, bool) {
	if !c.Old.Bool() && c.New.Bool() {
		return effects.Decision{Effect: effects.Refused, Refusal: effects.NotApplied, Reason: "the provider's API client leaves surge_upgrade: " +
			"false out of the update request (godo KubernetesClusterUpdateRequest, omitempty), so surge upgrades stay on " +
			"and every later preview shows the change again; surge can be turned off only when the cluster is created"}, true
	}
	return effects.Decision{}, false
}

// DOHighAvailability: DigitalOcean refuses to turn high availability off.
func DOHighAvailability(c effects.Change) (effects.Decision, bool) {
	if c.Old.Bool() && !c.New.Bool() {
		return effects.Decision{Effect: effects.Refused, Refusal: effects.FailsAtApply,
			Reason: "DigitalOcean's API refuses to turn high availability off once it is on: the update fails at apply"}, true
	}
	return effects.Decision{}, false
}
