//go:build e2e

package e2e_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	kindspkg "github.com/clusterplane/clusterplane/pkg/kinds"
)

// effectChanges are the changes of the effects walk: at least one for every row of every kind,
// one more for each different effect a row's condition (When) or removal can give.
func effectChanges() []change {
	ids := walkIDs
	const (
		doc   = "DigitalOceanKubernetesCluster"
		dop   = "DigitalOceanKubernetesNodePool"
		civoc = "CivoKubernetesCluster"
		civop = "CivoKubernetesNodePool"
	)
	set := func(path string, value any) []edit { return []edit{{path, value}} }
	none := []edit(nil)
	var out []change
	add := func(kind, row, name string, old, new []edit) {
		out = append(out, change{kind: kind, row: row, name: name, old: old, new: new})
	}
	// The rows every kind has, for every kind of the list.
	for _, kind := range registry.Kinds().Names() {
		add(kind, "metadata.annotations", "added", none, set("metadata.annotations", map[string]any{"owner": "platform"}))
		add(kind, "metadata.env", "set", none, set("metadata.env", "dev"))
		add(kind, "metadata.id", "set", none, set("metadata.id", "k8s-0001"))
		add(kind, "metadata.org", "set", none, set("metadata.org", "acme"))
		add(kind, "metadata.labels", "added", none, set("metadata.labels", map[string]any{"team": "platform"}))
		add(kind, "metadata.name", "renamed", none, set("metadata.name", "renamed"))
	}
	// Provider settings: a second key of the same account, the same API at another spelling, for
	// every kind of the cloud.
	for _, kind := range kindsOf("digitalocean") {
		add(kind, "providerConfig.apiToken", "another key", none, set("providerConfig.apiToken", walkDOToken2))
		add(kind, "providerConfig.apiUrl", "another spelling", none, set("providerConfig.apiUrl", url+"/"))
	}
	for _, kind := range kindsOf("civo") {
		add(kind, "providerConfig.apiToken", "another key", none, set("providerConfig.apiToken", walkCivoToken2))
		add(kind, "providerConfig.apiUrl", "another spelling", none, set("providerConfig.apiUrl", url+"/"))
		add(kind, "providerConfig.defaultRegion", "set", none, set("providerConfig.defaultRegion", "lon1"))
	}

	// DigitalOcean clusters.
	taint := []any{map[string]any{"key": "dedicated", "value": "system", "effect": "NoSchedule"}}
	for _, flag := range []string{"amdGpuDeviceMetricsExporterPlugin", "amdGpuDevicePlugin", "nvidiaGpuDevicePlugin",
		"rdmaSharedDevicePlugin", "routingAgent"} {
		add(doc, "spec."+flag, "turned on", set("spec."+flag, false), set("spec."+flag, true))
		add(doc, "spec."+flag, "removed", set("spec."+flag, true), none)
	}
	add(doc, "spec.autoUpgrade", "turned on", none, set("spec.autoUpgrade", true))
	add(doc, "spec.clusterAutoscaler", "set", none, set("spec.clusterAutoscaler", map[string]any{"scaleDownUtilizationThreshold": 0.65}))
	add(doc, "spec.clusterAutoscaler", "removed", set("spec.clusterAutoscaler", map[string]any{"scaleDownUnneededTime": "10m"}), none)
	add(doc, "spec.clusterName", "renamed", none, set("spec.clusterName", "renamed"))
	add(doc, "spec.clusterSubnet", "changed", set("spec.clusterSubnet", "10.244.0.0/16"), set("spec.clusterSubnet", "10.250.0.0/16"))
	add(doc, "spec.clusterSubnet", "removed", set("spec.clusterSubnet", "10.244.0.0/16"), none)
	add(doc, "spec.serviceSubnet", "changed", set("spec.serviceSubnet", "10.245.0.0/16"), set("spec.serviceSubnet", "10.251.0.0/16"))
	add(doc, "spec.serviceSubnet", "removed", set("spec.serviceSubnet", "10.245.0.0/16"), none)
	add(doc, "spec.controlPlaneFirewallAllowedAddresses", "added", none, set("spec.controlPlaneFirewallAllowedAddresses", []any{"203.0.113.7"}))
	add(doc, "spec.controlPlaneFirewallAllowedAddresses", "emptied", set("spec.controlPlaneFirewallAllowedAddresses", []any{"203.0.113.7"}), none)
	autoscaled := []edit{{"spec.defaultNodePool.autoScale", true}, {"spec.defaultNodePool.minNodes", 1},
		{"spec.defaultNodePool.maxNodes", 3}, {"spec.defaultNodePool.nodeCount", 2}}
	add(doc, "spec.defaultNodePool.autoScale", "turned on", none, autoscaled)
	add(doc, "spec.defaultNodePool.maxNodes", "raised", autoscaled, with(autoscaled, edit{"spec.defaultNodePool.maxNodes", 5}))
	add(doc, "spec.defaultNodePool.minNodes", "raised", autoscaled, with(autoscaled, edit{"spec.defaultNodePool.minNodes", 2}))
	add(doc, "spec.defaultNodePool.nodeCount", "scaled", none, set("spec.defaultNodePool.nodeCount", 2))
	add(doc, "spec.defaultNodePool.nodeCount", "under the autoscaler", autoscaled, with(autoscaled, edit{"spec.defaultNodePool.nodeCount", 3}))
	add(doc, "spec.defaultNodePool.labels", "added", none, set("spec.defaultNodePool.labels", map[string]any{"workload": "system"}))
	add(doc, "spec.defaultNodePool.labels", "cleared", set("spec.defaultNodePool.labels", map[string]any{"workload": "system"}), none)
	add(doc, "spec.defaultNodePool.nodePoolName", "renamed", none, set("spec.defaultNodePool.nodePoolName", "system"))
	add(doc, "spec.defaultNodePool.size", "resized", none, set("spec.defaultNodePool.size", "s-4vcpu-8gb"))
	add(doc, "spec.defaultNodePool.rollout", "rotation allowed", none, set("spec.defaultNodePool.rollout", map[string]any{"strategy": "ROTATE"}))
	add(doc, "spec.defaultNodePool.tags", "added", none, set("spec.defaultNodePool.tags", []any{"pool-system"}))
	add(doc, "spec.defaultNodePool.taints", "added", none, set("spec.defaultNodePool.taints", taint))
	add(doc, "spec.defaultNodePool.taints", "cleared", set("spec.defaultNodePool.taints", taint), none)
	add(doc, "spec.deletionProtection", "turned off", set("spec.deletionProtection", true), set("spec.deletionProtection", false))
	add(doc, "spec.destroyAllAssociatedResources", "turned on", none, set("spec.destroyAllAssociatedResources", true))
	add(doc, "spec.disableSurgeUpgrade", "surge back on", set("spec.disableSurgeUpgrade", true), set("spec.disableSurgeUpgrade", false))
	add(doc, "spec.disableSurgeUpgrade", "surge off on a running cluster", set("spec.disableSurgeUpgrade", false), set("spec.disableSurgeUpgrade", true))
	add(doc, "spec.highlyAvailable", "turned on", set("spec.highlyAvailable", false), set("spec.highlyAvailable", true))
	add(doc, "spec.highlyAvailable", "turned off", set("spec.highlyAvailable", true), set("spec.highlyAvailable", false))
	add(doc, "spec.kubeconfigExpireSeconds", "set", none, set("spec.kubeconfigExpireSeconds", 86400))
	add(doc, "spec.kubernetesVersion", "a later patch", none, set("spec.kubernetesVersion", "1.31.9-do.2"))
	add(doc, "spec.kubernetesVersion", "the next minor", set("spec.kubernetesVersion", "1.31.9-do.2"), set("spec.kubernetesVersion", "1.32.2-do.0"))
	add(doc, "spec.kubernetesVersion", "lowered", set("spec.kubernetesVersion", "1.31.9-do.2"), set("spec.kubernetesVersion", "1.31.1-do.5"))
	add(doc, "spec.kubernetesVersion", "two minors up", set("spec.kubernetesVersion", "1.31.9-do.2"), set("spec.kubernetesVersion", "1.33.1-do.0"))
	add(doc, "spec.kubernetesVersion", "a patch under autoUpgrade", set("spec.autoUpgrade", true),
		[]edit{{"spec.autoUpgrade", true}, {"spec.kubernetesVersion", "1.31.9-do.2"}})
	window := map[string]any{"day": "sunday", "startTime": "03:00"}
	add(doc, "spec.maintenanceWindow", "set", none, set("spec.maintenanceWindow", window))
	add(doc, "spec.maintenanceWindow", "removed", set("spec.maintenanceWindow", window), none)
	add(doc, "spec.region", "moved", none, set("spec.region", "ams3"))
	add(doc, "spec.region", "moved while protected", set("spec.deletionProtection", true),
		[]edit{{"spec.deletionProtection", true}, {"spec.region", "ams3"}})
	add(doc, "spec.registryIntegration", "turned on", none, set("spec.registryIntegration", true))
	add(doc, "spec.tags", "added", none, set("spec.tags", []any{"team-platform"}))
	add(doc, "spec.vpc", "moved", set("spec.vpc", map[string]any{"value": ids.vpc}), set("spec.vpc", map[string]any{"value": ids.vpc2}))
	add(doc, "spec.vpc", "removed", set("spec.vpc", map[string]any{"value": ids.vpc}), none)

	// DigitalOcean node pools.
	poolAutoscaled := []edit{{"spec.autoScale", true}, {"spec.minNodes", 1}, {"spec.maxNodes", 3}, {"spec.nodeCount", 2}}
	add(dop, "spec.autoScale", "turned on", none, poolAutoscaled)
	add(dop, "spec.maxNodes", "raised", poolAutoscaled, with(poolAutoscaled, edit{"spec.maxNodes", 5}))
	add(dop, "spec.minNodes", "raised", poolAutoscaled, with(poolAutoscaled, edit{"spec.minNodes", 2}))
	add(dop, "spec.nodeCount", "scaled", none, set("spec.nodeCount", 2))
	add(dop, "spec.nodeCount", "under the autoscaler", poolAutoscaled, with(poolAutoscaled, edit{"spec.nodeCount", 3}))
	add(dop, "spec.cluster", "moved", none, set("spec.cluster", map[string]any{"value": ids.doCluster2}))
	add(dop, "spec.labels", "added", none, set("spec.labels", map[string]any{"workload": "apps"}))
	add(dop, "spec.labels", "cleared", set("spec.labels", map[string]any{"workload": "apps"}), none)
	add(dop, "spec.nodePoolName", "renamed", none, set("spec.nodePoolName", "renamed"))
	add(dop, "spec.size", "resized", none, set("spec.size", "s-4vcpu-8gb"))
	add(dop, "spec.rollout", "rotation allowed", none, set("spec.rollout", map[string]any{"strategy": "ROTATE", "maxSurge": 3}))
	add(dop, "spec.tags", "added", none, set("spec.tags", []any{"pool-apps"}))
	add(dop, "spec.taints", "added", none, set("spec.taints", taint))
	add(dop, "spec.taints", "cleared", set("spec.taints", taint), none)

	// Civo clusters.
	add(civoc, "spec.apiServerAllowedCidrs", "narrowed", none, set("spec.apiServerAllowedCidrs", []any{"203.0.113.0/24"}))
	add(civoc, "spec.applications", "added", none, set("spec.applications", []any{"metrics-server"}))
	add(civoc, "spec.clusterName", "renamed", none, set("spec.clusterName", "renamed"))
	add(civoc, "spec.clusterType", "k3s to talos", none, []edit{{"spec.clusterType", "talos"}, {"spec.kubernetesVersion", "talos-v1.5.0"}})
	add(civoc, "spec.cni", "flannel to cilium", none, set("spec.cni", "cilium"))
	add(civoc, "spec.defaultNodePool.labels", "added", none, set("spec.defaultNodePool.labels", map[string]any{"workload": "system"}))
	add(civoc, "spec.defaultNodePool.taints", "added", none, set("spec.defaultNodePool.taints", taint))
	add(civoc, "spec.defaultNodePool.nodeCount", "scaled", none, set("spec.defaultNodePool.nodeCount", 2))
	add(civoc, "spec.defaultNodePool.publicIpNodePool", "turned on", none, set("spec.defaultNodePool.publicIpNodePool", true))
	add(civoc, "spec.defaultNodePool.size", "resized", none, set("spec.defaultNodePool.size", "g4s.kube.medium"))
	add(civoc, "spec.deletionProtection", "turned off", set("spec.deletionProtection", true), set("spec.deletionProtection", false))
	add(civoc, "spec.firewall", "an existing one", none, set("spec.firewall", map[string]any{"value": ids.civoFirewall}))
	add(civoc, "spec.kubernetesVersion", "upgraded", none, set("spec.kubernetesVersion", "1.31.1-k3s1"))
	add(civoc, "spec.kubernetesVersion", "lowered", set("spec.kubernetesVersion", "1.31.1-k3s1"), set("spec.kubernetesVersion", "1.30.5-k3s1"))
	talos := []edit{{"spec.clusterType", "talos"}, {"spec.kubernetesVersion", "talos-v1.5.0"}}
	add(civoc, "spec.kubernetesVersion", "a talos cluster's", talos, []edit{talos[0], {"spec.kubernetesVersion", "talos-v1.7.0"}})
	add(civoc, "spec.network", "moved", none, set("spec.network", map[string]any{"value": ids.civoNetwork2}))
	add(civoc, "spec.region", "moved", none, set("spec.region", "lon1"))
	add(civoc, "spec.tags", "added", none, set("spec.tags", []any{"team-platform"}))

	// Civo node pools.
	civoAutoscaled := []edit{{"spec.autoScale", true}, {"spec.minNodes", 1}, {"spec.maxNodes", 3}, {"spec.nodeCount", 2}}
	add(civop, "spec.autoScale", "turned on", none, civoAutoscaled)
	add(civop, "spec.maxNodes", "raised", civoAutoscaled, with(civoAutoscaled, edit{"spec.maxNodes", 5}))
	add(civop, "spec.minNodes", "raised", civoAutoscaled, with(civoAutoscaled, edit{"spec.minNodes", 2}))
	add(civop, "spec.nodeCount", "scaled", none, set("spec.nodeCount", 2))
	add(civop, "spec.nodeCount", "under the autoscaler", civoAutoscaled, with(civoAutoscaled, edit{"spec.nodeCount", 3}))
	add(civop, "spec.cluster", "moved", none, set("spec.cluster", map[string]any{"value": ids.civoCluster2}))
	add(civop, "spec.labels", "added", none, set("spec.labels", map[string]any{"workload": "apps"}))
	add(civop, "spec.labels", "cleared", set("spec.labels", map[string]any{"workload": "apps"}), none)
	add(civop, "spec.nodePoolName", "renamed", none, set("spec.nodePoolName", "renamed"))
	add(civop, "metadata.name", "renamed with its pool name", none, []edit{{"metadata.name", "renamed"}, {"spec.nodePoolName", "renamed"}})
	add(civoc, "metadata.name", "renamed with its cluster name", none, []edit{{"metadata.name", "renamed"}, {"spec.clusterName", "renamed"}})
	add(civop, "spec.publicIpNodePool", "turned on", none, set("spec.publicIpNodePool", true))
	add(civop, "spec.region", "moved", none, set("spec.region", "lon1"))
	add(civop, "spec.size", "resized", none, set("spec.size", "g4s.kube.large"))
	add(civop, "spec.rollout", "rotation allowed", none, set("spec.rollout", map[string]any{"strategy": "ROTATE", "drainTimeoutMinutes": 20}))
	add(civop, "spec.taints", "added", none, set("spec.taints", taint))
	add(civop, "spec.taints", "cleared", set("spec.taints", taint), none)
	add(civop, "spec.waitTimeoutMinutes", "raised", none, set("spec.waitTimeoutMinutes", 30))
	return out
}

// with is edits with more edits after them, the later winning.
func with(edits []edit, more ...edit) []edit {
	return append(append([]edit(nil), edits...), more...)
}

// cloudOf is the cloud of a kind's API: apis/clusterplane/provider/<cloud>/<kind>/v1, whose proto
// package is clusterplane.provider.<cloud>.<kind>.v1.
func cloudOf(k kindspkg.Kind) string {
	return strings.Split(string(k.StackInput().FullName()), ".")[2]
}

// kindsOf are the names of the kinds of the list in cloud.
func kindsOf(cloud string) []string {
	var out []string
	for _, k := range registry.Kinds() {
		if cloudOf(k) == cloud {
			out = append(out, k.Name)
		}
	}
	return out
}

// The changes of a kind's own fields cannot be derived from its table: what a change sets, and
// from which old manifest, is the claim itself. A kind of the list with none of them, or no base
// manifest to start from, fails here at once, before the walk deploys anything.
func TestEveryKindOfTheListHasChangesForTheEffectsWalk(t *testing.T) {
	own := map[string]int{}
	for _, c := range effectChanges() {
		if !strings.HasPrefix(c.row, "metadata.") && !strings.HasPrefix(c.row, "providerConfig.") {
			own[c.kind]++
		}
	}
	for _, k := range registry.Kinds() {
		if own[k.Name] == 0 {
			t.Errorf("%s, a kind of iac/pulumi/registry, has no changes of its spec in e2e/effects_changes_test.go: "+
				"add one for each row of its effects table", k.Name)
		}
		if baseSpec(k.Name, "x") == nil {
			t.Errorf("%s, a kind of iac/pulumi/registry, has no base manifest for the effects walk: add it to baseSpec "+
				"in e2e/effects_test.go", k.Name)
		}
		if cloud := cloudOf(k); cloud != "digitalocean" && cloud != "civo" {
			t.Errorf("%s is of cloud %q, which the effects walk has no loopback cloud and provider settings for", k.Name, cloud)
		}
	}
}
