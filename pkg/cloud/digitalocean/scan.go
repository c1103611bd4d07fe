package digitalocean

import (
	"context"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// The DigitalOcean provider (pulumi-digitalocean v4.57.0, which wraps terraform-provider-
// digitalocean v2.75.0) reads a cluster in resourceDigitalOceanKubernetesClusterRead
// (digitalocean/kubernetes/resource_kubernetes_cluster.go) and a pool in
// resourceDigitalOceanKubernetesNodePoolRead (resource_kubernetes_node_pool.go): the properties
// below are those it sets there from the same answer the list gives, named as Pulumi names them.
const (
	scanClusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	scanPoolType    = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
)

// scanPoolProperties are a pool's compared properties, as scanPool fills them.
var scanPoolProperties = []string{"name", "size", "nodeCount", "autoScale", "minNodes", "maxNodes", "tags", "labels", "taints"}

// ScanReaders are DigitalOcean's cluster and node pool, looked up in the account's one list.
func (Driver) ScanReaders() map[string]cloud.ScanReader {
	cluster := []string{"name", "region", "version", "surgeUpgrade", "ha", "clusterSubnet", "serviceSubnet", "tags", "vpcUuid",
		"autoUpgrade", "maintenancePolicy.day", "maintenancePolicy.startTime", "controlPlaneFirewall.enabled",
		"controlPlaneFirewall.allowedAddresses", "clusterAutoscalerConfigurations", "routingAgent", "nvidiaGpuDevicePlugin",
		"amdGpuDevicePlugin", "amdGpuDeviceMetricsExporterPlugin", "rdmaSharedDevicePlugin"}
	for _, p := range scanPoolProperties {
		cluster = append(cluster, "nodePool."+p)
	}
	// ResourceDigitalOceanKubernetesCluster (resource_kubernetes_cluster.go) makes these Optional
	// and Computed: a manifest without them sends nothing, and the cluster keeps what the cloud has.
	unsentKept := map[string]bool{"vpcUuid": true, "clusterSubnet": true, "serviceSubnet": true, "maintenancePolicy": true,
		"controlPlaneFirewall": true, "routingAgent": true, "amdGpuDevicePlugin": true, "amdGpuDeviceMetricsExporterPlugin": true,
		"nvidiaGpuDevicePlugin": true, "rdmaSharedDevicePlugin": true}
	return map[string]cloud.ScanReader{
		scanClusterType: {What: "DigitalOcean cluster", Compares: cluster, Leaves: leaves, UnsentKept: unsentKept},
		scanPoolType: {List: cloud.ListsPools, What: "DigitalOcean node pool",
			Compares: append([]string{"clusterId"}, scanPoolProperties...)},
	}
}

// ScanList lists the account's clusters with their pools, every region at once.
func (Driver) ScanList(ctx context.Context, base, token, _ string, opts cloudapi.Options) (cloud.Listing, cloud.Counted, error) {
	l := cloud.NewListing()
	c := New(base, token, Options{Options: opts})
	// A run's look-ups by name take their list from the run (RunClusters): the scan's is it.
	clusters, ok, err := RunClusters(ctx, base, token, c.Clusters)
	if !ok {
		clusters, err = c.Clusters(ctx)
	}
	for _, cl := range clusters {
		addCluster(l, cl)
	}
	return l, c, err
}

// leaves tells whether the cloud's value of a property the cluster's program leaves to the cloud
// is one the module leaves to it. With autoUpgrade the module ignores the version only while
// DigitalOcean keeps the cluster on the minor line the module sent (deployedVersion,
// iac/pulumi/digitaloceankubernetescluster/module/version.go): a later minor is one the module
// refuses at the next up (the manifest's is older and would replace the cluster), so it differs.
// An autoscaled pool's node count is the autoscaler's, whatever it is.
func leaves(path string, live, inputs, outputs map[string]any) bool {
	if path != "version" {
		return true
	}
	sent, _ := inputs["version"].(string)
	if sent == "" {
		sent, _ = outputs["version"].(string)
	}
	now, _ := live["version"].(string)
	// A list that leaves the version out says nothing of it: not left to the cloud, so that the
	// scan names it unread and the engine reads the cluster.
	return now != "" && kubeversion.SameMinor(now, sent)
}

// addCluster adds a listed cluster and its pools. A property the answer leaves out is
// compared as what resourceDigitalOceanKubernetesClusterRead records then: the control plane
// firewall, the routing agent, the GPU and RDMA plugins and the autoscaler configuration as an
// empty list (flattenControlPlaneFirewallOpts, flattenRoutingAgentOpts, flattenCAConfigOpts and
// the others in digitalocean/kubernetes/kubernetes.go return an empty list for a nil option), and
// every scalar as its zero (d.Set of the answer's field): the scan's zero for a property absent
// from props. The provider keeps two as the state has them: the default pool when no pool carries
// its tag (the node_pool d.Set runs only for a tagged pool, resource_kubernetes_cluster.go), and
// the maintenance policy when the answer has none (flattenMaintPolicyOpts dereferences it, so its
// read fails rather than record anything).
//
// But the provider reads the cluster with GET /v2/kubernetes/clusters/{id}
// (client.Kubernetes.Get in resourceDigitalOceanKubernetesClusterRead), not from the list: a
// list that leaves out what DigitalOcean always gives (the name, region, version, subnets, VPC,
// tags, maintenance policy, and at least one pool) says nothing of what that read finds, so
// each such property is cloud.Unread and the stack is not judged. So is a cluster whose pools
// are listed, none tagged as the default: the provider's read would keep the default pool as
// recorded (its d.Set("node_pool", ...) runs only for a pool tagged terraform:default-node-pool,
// digitaloceanKubernetesClusterRead), but the pool is gone, which the cluster's module finds in
// its own list of the account and refuses (partgone.Error): the stack goes to the
// engine, where drift says so. Booleans and counts that godo leaves out when false or
// zero (omitempty) cannot be told from a hidden value and are read as false or zero, as the
// provider reads them.
func addCluster(l cloud.Listing, cl Cluster) {
	c := cloud.ListedCluster{Cloud: string(ID), ID: cl.ID, Name: cl.Name, Region: cl.Region, Tags: cl.Tags}
	props := map[string]any{
		"name":          cl.Name,
		"region":        cl.Region,
		"version":       cl.Version,
		"surgeUpgrade":  cl.SurgeUpgrade,
		"ha":            cl.HA,
		"clusterSubnet": cl.ClusterSubnet,
		"serviceSubnet": cl.ServiceSubnet,
		"tags":          scanTags(cl.Tags),
		"vpcUuid":       cl.VPCUUID,
		"autoUpgrade":   cl.AutoUpgrade,
	}
	unreadIfEmpty(props, map[string]bool{"name": cl.Name == "", "region": cl.Region == "", "version": cl.Version == "",
		"clusterSubnet": cl.ClusterSubnet == "", "serviceSubnet": cl.ServiceSubnet == "", "vpcUuid": cl.VPCUUID == "",
		"tags": len(cl.Tags) == 0})
	props["maintenancePolicy"] = cloud.Unread{}
	if mp := cl.MaintenancePolicy; mp != nil {
		props["maintenancePolicy"] = map[string]any{"day": mp.Day, "startTime": mp.StartTime}
	}
	// The provider reads only the pool tagged as the default one into nodePool: until a listed
	// pool shows the tag, nodePool is unread, whether the answer left the pools or their tags
	// out or the pool is gone (Cluster.DefaultPoolGone, which the module refuses).
	props["nodePool"] = cloud.Unread{}
	if cl.PoolsLeftOut() {
		l.PoolsLeftOut[cl.ID] = true
	}
	if fw := cl.ControlPlaneFirewall; fw != nil {
		props["controlPlaneFirewall"] = map[string]any{"enabled": fw.Enabled, "allowedAddresses": fw.AllowedAddresses}
	}
	if ca := cl.ClusterAutoscalerConfiguration; ca != nil {
		props["clusterAutoscalerConfigurations"] = []any{map[string]any{"scaleDownUtilizationThreshold": ca.ScaleDownUtilizationThreshold,
			"scaleDownUnneededTime": ca.ScaleDownUnneededTime, "expanders": ca.Expanders}}
	}
	for name, sw := range map[string]*Switch{
		"routingAgent":                      cl.RoutingAgent,
		"nvidiaGpuDevicePlugin":             cl.NvidiaGpuDevicePlugin,
		"amdGpuDevicePlugin":                cl.AmdGpuDevicePlugin,
		"amdGpuDeviceMetricsExporterPlugin": cl.AmdGpuDeviceMetricsExporterPlugin,
		"rdmaSharedDevicePlugin":            cl.RdmaSharedDevicePlugin,
	} {
		if sw != nil {
			props[name] = map[string]any{"enabled": sw.Enabled}
		}
	}
	for _, p := range cl.NodePools {
		pool := scanPool(p)
		if p.IsDefault() {
			def := map[string]any{"id": p.ID}
			for k, v := range pool {
				def[k] = v
			}
			props["nodePool"] = def
		}
		// A pool resource's clusterId is the cluster whose list holds it.
		own := map[string]any{"clusterId": cl.ID}
		for k, v := range pool {
			own[k] = v
		}
		l.Pools[p.ID] = cloud.Listed{Cluster: c, Properties: own}
		// A pool stack's pool, not the cluster's default pool (its cluster stack's own, which
		// carries that stack's mark) nor a rotation's (which its rotation resumes or removes).
		rotating := slices.ContainsFunc(p.Tags, func(t string) bool { return strings.HasPrefix(t, MarkTag) })
		if len(stackmark.In(p.Tags)) > 0 && !p.IsDefault() && !rotating {
			l.MarkedPools[p.ID] = cloud.ListedPool{Cluster: c, ID: p.ID, AdoptID: p.ID, Name: p.Name, Tags: p.Tags}
		}
	}
	l.Clusters[cl.ID] = cloud.Listed{Cluster: c, Properties: props}
}

// unreadIfEmpty makes each property of props that empty says is empty cloud.Unread: the answer
// left out a value DigitalOcean always gives (its own k8s tags are on every cluster and pool).
func unreadIfEmpty(props map[string]any, empty map[string]bool) {
	for name, e := range empty {
		if e {
			props[name] = cloud.Unread{}
		}
	}
}

// scanPool is a pool's properties, as the pool resource and a cluster's nodePool both hold them.
// A pool not autoscaled has a node at least: a count of 0 is one the answer left out.
func scanPool(p NodePool) map[string]any {
	pool := map[string]any{
		"name":      p.Name,
		"size":      p.Size,
		"nodeCount": p.Count,
		"autoScale": p.AutoScale,
		"minNodes":  p.MinNodes,
		"maxNodes":  p.MaxNodes,
		"tags":      scanTags(p.Tags),
		"labels":    p.Labels,
		"taints":    p.Taints,
	}
	unreadIfEmpty(pool, map[string]bool{"name": p.Name == "", "size": p.Size == "", "tags": len(p.Tags) == 0,
		"nodeCount": p.Count == 0 && !p.AutoScale})
	return pool
}

// scanTags are the tags the provider keeps (FilterTags): without DigitalOcean's own (k8s,
// k8s:<id>, k8s:worker) and the provider's (terraform:...).
func scanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if t != "k8s" && !strings.HasPrefix(t, "k8s:") && !strings.HasPrefix(t, "terraform:") {
			out = append(out, t)
		}
	}
	return out
}
