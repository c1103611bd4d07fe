package digitalocean

import (
	"context"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/pkg/errors"
)

// defaultPoolTag marks the pool the Terraform provider (inside pulumi-digitalocean) takes for a
// cluster's default pool.
const defaultPoolTag = "terraform:default-node-pool"

// Discover reads the account's clusters, 200 a page with their pools inline.
func (Driver) Discover(ctx context.Context, a cloud.Account) (cloud.Found, error) {
	c := New(a.URL, a.Token, Options{Options: a.Transport, MaxPages: a.MaxPages})
	all, err := c.Clusters(ctx)
	if err != nil {
		return cloud.Found{}, err
	}
	var found cloud.Found
	for _, cl := range all {
		named := cloud.Named{ID: cl.ID, Name: cl.Name, Where: cl.Region}
		if a.Region != "" && !strings.EqualFold(cl.Region, a.Region) || !a.Wanted(cl.ID, cl.Name) {
			found.Besides = append(found.Besides, named)
			continue
		}
		f, err := Discovered(cl, a)
		if err != nil {
			found.Besides = append(found.Besides, named)
			found.Notes = append(found.Notes, err.Error())
			continue
		}
		found.Clusters = append(found.Clusters, f)
	}
	found.Requests = c.Requests()
	return found, nil
}

// Discovered is a cluster as its manifests write it: the cluster with its default pool, then one
// per extra pool; an error saying why a cluster no manifest can describe is skipped.
func Discovered(cl Cluster, a cloud.Account) (cloud.FoundCluster, error) {
	region := strings.ToLower(cl.Region)
	if !a.Spellable(region) {
		return cloud.FoundCluster{}, errors.Errorf("DigitalOcean cluster %s (%s) is in region %q, which a manifest's region cannot spell: skipped", cl.Name, cl.ID, cl.Region)
	}
	if len(cl.NodePools) == 0 {
		return cloud.FoundCluster{}, errors.Errorf("DigitalOcean cluster %s (%s) has no node pool: skipped", cl.Name, cl.ID)
	}
	def, notes := defaultPool(cl)
	// The expiry is what the provider asks the kubeconfig it fetches for; DigitalOcean's API does
	// not say it back.
	notes = append(notes, "spec.kubeconfigExpireSeconds is not read: DigitalOcean's API does not return it (it is how long "+
		"the credentials the provider fetches last); set it again if the stack had one.")
	spec := map[string]any{
		"kubernetesVersion":   cl.Version,
		"highlyAvailable":     cl.HA,
		"autoUpgrade":         cl.AutoUpgrade,
		"disableSurgeUpgrade": !cl.SurgeUpgrade,
		"registryIntegration": cl.RegistryEnabled,
		"clusterSubnet":       cl.ClusterSubnet,
		"serviceSubnet":       cl.ServiceSubnet,
	}
	if cl.VPCUUID != "" {
		spec["vpc"] = cloud.Literal(cl.VPCUUID)
	}
	notes = optional(cl, spec, notes)
	out := cloud.FoundCluster{
		Named:  cloud.Named{ID: cl.ID, Name: cl.Name, Where: cl.Region},
		Region: region, Tags: withoutCloudTags(cl.Tags), Spec: spec,
		// The default pool carries the cluster's derived tags, not a pool kind's; its manifest
		// names it, as an extra pool's does.
		Default: pool(def, a),
		Managed: a.Managed(cl.Tags, Driver{}.Kinds().Cluster),
		Notes:   append([]string{"Default pool: " + def.Name + ", id " + def.ID + "."}, notes...),
	}
	for _, p := range cl.NodePools {
		switch {
		case p.ID == def.ID:
		case Karpenters(p.Tags):
			out.Notes = append(out.Notes, "Pool "+p.Name+" ("+p.ID+") is the Karpenter provider's, which makes and deletes it as "+
				"pods come and go: not written.")
		default:
			out.Pools = append(out.Pools, pool(p, a))
		}
	}
	return out, nil
}

// KarpenterMarkTag begins the tag by which clusterplane's Karpenter provider (karpenter/) marks
// the pools it owns and finds them again, followed by the pool's mark.
const KarpenterMarkTag = "clusterplane-karpenter:"

// Karpenters tells a pool the Karpenter provider marked, by its tags: discover writes no
// manifest for it, as adopting it would fight the provider, which resizes and deletes it.
func Karpenters(tags []string) bool {
	return slices.ContainsFunc(tags, func(t string) bool { return strings.HasPrefix(t, KarpenterMarkTag) })
}

// pool is a pool as its manifest (or its cluster's defaultNodePool) writes it. A pool deployed as
// a DigitalOceanKubernetesNodePool of its own carries that kind's tag, whatever made its cluster.
func pool(p NodePool, a cloud.Account) cloud.FoundPool {
	spec := map[string]any{
		"nodePoolName": p.Name,
		"size":         p.Size,
		"nodeCount":    p.Count,
		"labels":       p.Labels,
		"taints":       cloud.Taints(p.Taints),
	}
	if p.AutoScale {
		spec["autoScale"], spec["minNodes"], spec["maxNodes"] = true, p.MinNodes, p.MaxNodes
	}
	return cloud.FoundPool{ID: p.ID, Name: p.Name, Tagged: true, Tags: withoutCloudTags(p.Tags), Spec: spec,
		Managed: a.Managed(p.Tags, Driver{}.Kinds().Pool)}
}

// optional writes into spec what a cluster sets beside its defaults: a maintenance window, the
// control-plane firewall, the autoscaler's settings, the components turned on. notes are told
// what a manifest cannot say of them.
func optional(cl Cluster, spec map[string]any, notes []string) []string {
	// The module's own window is any day at 00:00; only another one is written.
	if mp := cl.MaintenancePolicy; mp != nil && !(orDefault(mp.Day, "any") == "any" && orDefault(mp.StartTime, "00:00") == "00:00") {
		spec["maintenanceWindow"] = map[string]any{
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
		ca := map[string]any{"expanders": a.Expanders}
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
		sw  *Switch
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

// defaultPool is the pool the provider takes for the cluster's default: the one tagged
// terraform:default-node-pool, else the first (the oldest: the one the cluster was created with).
func defaultPool(cl Cluster) (NodePool, []string) {
	for _, p := range cl.NodePools {
		if slices.Contains(p.Tags, defaultPoolTag) {
			return p, nil
		}
	}
	var notes []string
	if len(cl.NodePools) > 1 {
		notes = append(notes, "No pool carries the tag "+defaultPoolTag+", by which the provider knows a cluster's default pool; "+
			"the first pool, "+cl.NodePools[0].Name+", is taken for it.")
	}
	return cl.NodePools[0], notes
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

// hhmm is a start time as the manifest writes it: DigitalOcean may answer "03:00" or "3:00".
func hhmm(s string) string {
	h, m, ok := strings.Cut(s, ":")
	if ok && len(h) == 1 {
		return "0" + h + ":" + m
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
