package discover

import (
	"context"
	"slices"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
)

const (
	doClusterKind = "DigitalOceanKubernetesCluster"
	doPoolKind    = "DigitalOceanKubernetesNodePool"
	doAPIVersion  = "digitalocean.clusterplane.dev/v1"
	// doDefaultPoolTag marks the pool the Terraform provider (inside pulumi-digitalocean) takes
	// for a cluster's default pool.
	doDefaultPoolTag = "terraform:default-node-pool"
	// maxPages bounds a list: an API that always answers a next page must not hold discover.
	maxPages = 1000
)

// DigitalOcean's models (pkg/cloud/digitalocean), named as this package's code knows them.
type (
	doCluster = digitalocean.Cluster
	doPool    = digitalocean.NodePool
	doSwitch  = digitalocean.Switch
	taint     = cloudapi.Taint
)

func discoverDigitalOcean(ctx context.Context, c *digitalocean.Client, o Options) ([]manifest, []string, error) {
	all, err := c.Clusters(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []manifest
	var notes []string
	var clusters []discovered
	for _, cl := range all {
		clusters = append(clusters, discovered{cl.ID, cl.Name, cl.Region})
	}
	names := clusterNames(clusters)
	for _, cl := range all {
		if o.Region != "" && !strings.EqualFold(cl.Region, o.Region) || !wanted(o, cl.ID, cl.Name) {
			continue
		}
		ms, err := doManifests(cl, names[cl.ID])
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		out = append(out, ms...)
	}
	sortManifests(out)
	return out, notes, nil
}

// doManifests are the manifests of one cluster: the cluster with its default pool, then one per
// extra pool.
func doManifests(cl doCluster, name string) ([]manifest, error) {
	region := strings.ToLower(cl.Region)
	if !cost.RegionName(region) {
		return nil, errors.Errorf("DigitalOcean cluster %s (%s) is in region %q, which a manifest's region cannot spell: skipped", cl.Name, cl.ID, cl.Region)
	}
	if len(cl.NodePools) == 0 {
		return nil, errors.Errorf("DigitalOcean cluster %s (%s) has no node pool: skipped", cl.Name, cl.ID)
	}
	def, notes := doDefaultPool(cl)
	// The expiry is what the provider asks the kubeconfig it fetches for; DigitalOcean's API does
	// not say it back.
	notes = append(notes, "spec.kubeconfigExpireSeconds is not read: DigitalOcean's API does not return it (it is how long "+
		"the credentials the provider fetches last); set it again if the stack had one.")
	md, tags := metadata(doClusterKind, name, cl.ID, withoutCloudTags(cl.Tags))
	spec := object{
		"clusterName":         cl.Name,
		"region":              region,
		"kubernetesVersion":   cl.Version,
		"highlyAvailable":     cl.HA,
		"autoUpgrade":         cl.AutoUpgrade,
		"disableSurgeUpgrade": !cl.SurgeUpgrade,
		"registryIntegration": cl.RegistryEnabled,
		"clusterSubnet":       cl.ClusterSubnet,
		"serviceSubnet":       cl.ServiceSubnet,
		"tags":                tags,
	}
	if cl.VPCUUID != "" {
		spec["vpc"] = raw(literal(cl.VPCUUID))
	}
	notes = doOptional(cl, spec, notes)
	dp := object{
		"nodePoolName": def.Name,
		"size":         def.Size,
		"nodeCount":    def.Count,
		"labels":       def.Labels,
		"taints":       rawTaints(def.Taints),
		// The default pool carries the cluster's derived tags, not a pool kind's.
		"tags": withoutDerived(doClusterKind, md, withoutCloudTags(def.Tags)),
	}
	if def.AutoScale {
		dp["autoScale"], dp["minNodes"], dp["maxNodes"] = true, def.MinNodes, def.MaxNodes
	}
	spec["defaultNodePool"] = dp
	sortKey := "digitalocean/" + cl.Region + "/" + md.Name + "/" + cl.ID
	out := []manifest{{
		kind: doClusterKind, cloudID: cl.ID, cloud: "DigitalOcean", region: cl.Region,
		what:     "Kubernetes cluster " + cl.Name,
		fileBase: md.Name, sortKey: sortKey, notes: append([]string{"Default pool: " + def.Name + ", id " + def.ID + "."}, notes...),
		managed: labels.Managed(cl.Tags, doClusterKind),
		doc:     object{"apiVersion": doAPIVersion, "kind": doClusterKind, "metadata": raw(md), "spec": spec},
	}}
	for _, p := range cl.NodePools {
		if p.ID == def.ID {
			continue
		}
		out = append(out, doPoolManifest(cl, md, p, sortKey))
	}
	return out, nil
}

// doOptional writes into spec what a cluster sets beside its defaults: a maintenance window,
// the control-plane firewall, the autoscaler's settings, the components turned on. notes are
// told what a manifest cannot say of them.
func doOptional(cl doCluster, spec object, notes []string) []string {
	// The module's own window is any day at 00:00; only another one is written.
	if mp := cl.MaintenancePolicy; mp != nil && !(orDefault(mp.Day, "any") == "any" && orDefault(mp.StartTime, "00:00") == "00:00") {
		spec["maintenanceWindow"] = object{
			"day": strings.ToLower(orDefault(mp.Day, "any")), "startTime": hhmm(orDefault(mp.StartTime, "00:00")),
		}
	}
	if fw := cl.ControlPlaneFirewall; fw != nil && fw.Enabled != nil && *fw.Enabled {
		spec["controlPlaneFirewallAllowedAddresses"] = fw.AllowedAddresses
		if len(fw.AllowedAddresses) == 0 {
			notes = append(notes, "The control-plane firewall is on with no address allowed, which a manifest cannot say (an empty list turns it off).")
		}
	}
	if a := cl.ClusterAutoscalerConfiguration; a != nil && (a.ScaleDownUtilizationThreshold != nil || a.ScaleDownUnneededTime != nil || len(a.Expanders) > 0) {
		ca := object{"expanders": a.Expanders}
		if a.ScaleDownUtilizationThreshold != nil {
			ca["scaleDownUtilizationThreshold"] = *a.ScaleDownUtilizationThreshold
		}
		if a.ScaleDownUnneededTime != nil {
			ca["scaleDownUnneededTime"] = *a.ScaleDownUnneededTime
		}
		spec["clusterAutoscaler"] = ca
	}
	// A component left out keeps DigitalOcean's default; only one turned on is written.
	for _, s := range []struct {
		sw  *doSwitch
		key string
	}{
		{cl.RoutingAgent, "routingAgent"},
		{cl.NvidiaGpuDevicePlugin, "nvidiaGpuDevicePlugin"},
		{cl.AmdGpuDevicePlugin, "amdGpuDevicePlugin"},
		{cl.AmdGpuDeviceMetricsExporterPlugin, "amdGpuDeviceMetricsExporterPlugin"},
		{cl.RdmaSharedDevicePlugin, "rdmaSharedDevicePlugin"},
	} {
		if s.sw != nil && s.sw.Enabled != nil && *s.sw.Enabled {
			spec[s.key] = true
		}
	}
	return notes
}

// doDefaultPool is the pool the provider takes for the cluster's default: the one tagged
// terraform:default-node-pool, else the first (the oldest: the one the cluster was created with).
func doDefaultPool(cl doCluster) (doPool, []string) {
	for _, p := range cl.NodePools {
		if slices.Contains(p.Tags, doDefaultPoolTag) {
			return p, nil
		}
	}
	var notes []string
	if len(cl.NodePools) > 1 {
		notes = append(notes, "No pool carries the tag "+doDefaultPoolTag+", by which the provider knows a cluster's default pool; "+
			"the first pool, "+cl.NodePools[0].Name+", is taken for it.")
	}
	return cl.NodePools[0], notes
}

func doPoolManifest(cl doCluster, clusterMD *sharedv1.CloudResourceMetadata, p doPool, sortKey string) manifest {
	md, tags := metadata(doPoolKind, clusterMD.Name+"-"+p.Name, p.ID, withoutCloudTags(p.Tags))
	spec := object{
		"nodePoolName": p.Name,
		"cluster":      raw(reference(doClusterKind, clusterMD)),
		"size":         p.Size,
		"nodeCount":    p.Count,
		"labels":       p.Labels,
		"taints":       rawTaints(p.Taints),
		"tags":         tags,
	}
	if p.AutoScale {
		spec["autoScale"], spec["minNodes"], spec["maxNodes"] = true, p.MinNodes, p.MaxNodes
	}
	return manifest{
		kind: doPoolKind, cloudID: p.ID, cloud: "DigitalOcean", region: cl.Region, pool: true,
		// A pool deployed as a DigitalOceanKubernetesNodePool of its own carries that kind's tag,
		// whatever made its cluster.
		managed:  labels.Managed(p.Tags, doPoolKind),
		what:     "node pool " + p.Name + " of Kubernetes cluster " + cl.Name + " (" + cl.ID + ")",
		fileBase: md.Name, sortKey: sortKey,
		doc: object{"apiVersion": doAPIVersion, "kind": doPoolKind, "metadata": raw(md), "spec": spec},
	}
}

// withoutCloudTags are tags without those DigitalOcean and the Terraform provider add by
// themselves (k8s, k8s:<cluster-id>, k8s:worker, terraform:...), which the provider filters out
// and a manifest may not name.
func withoutCloudTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		l := strings.ToLower(t)
		if l == "k8s" || strings.HasPrefix(l, "k8s:") || strings.HasPrefix(l, "terraform:") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// reference is a pool's valueFrom to its cluster's stack.
func reference(kind string, md *sharedv1.CloudResourceMetadata) *sharedv1.StringValueOrRef {
	return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_ValueFrom{
		ValueFrom: &sharedv1.ValueFromRef{Kind: kind, Name: md.GetName(), Env: md.GetEnv()},
	}}
}

func literal(v string) *sharedv1.StringValueOrRef {
	return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_Value{Value: v}}
}

func taints(ts []taint) []*sharedv1.Taint {
	var out []*sharedv1.Taint
	for _, t := range ts {
		out = append(out, &sharedv1.Taint{Key: t.Key, Value: t.Value, Effect: sharedv1.TaintEffect(sharedv1.TaintEffect_value[t.Effect])})
	}
	return out
}

// hhmm is a start time as the manifest writes it: DigitalOcean may answer "03:00" or "3:00".
func hhmm(s string) string {
	h, m, ok := strings.Cut(s, ":")
	if ok && len(h) == 1 {
		return "0" + h + ":" + m
	}
	return s
}
