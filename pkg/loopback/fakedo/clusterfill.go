package fakedo

import (
	"slices"
	"strings"

	"github.com/digitalocean/godo"
)

// forgetPending drops the provisioning counts of pools that are gone or fully running.
func (d clusterAPI) forgetPending(cl *cluster) {
	for pid := range cl.poolPending {
		p := poolIn(&cl.c, pid)
		if p == nil || !provisioning(p) {
			delete(cl.poolPending, pid)
		}
	}
}

// fill completes a cluster as a create would have made it, running.
func (d clusterAPI) fill(c *godo.KubernetesCluster) {
	t := now()
	if c.Name == "" {
		c.Name = "cluster-" + c.ID[:min(8, len(c.ID))]
	}
	if c.RegionSlug == "" {
		c.RegionSlug = d.account.firstRegion()
	}
	if c.VersionSlug == "" {
		c.VersionSlug = d.account.latestVersion()
	}
	if c.ClusterSubnet == "" {
		c.ClusterSubnet = defaultClusterSubnet
	}
	if c.ServiceSubnet == "" {
		c.ServiceSubnet = defaultServiceSubnet
	}
	if c.VPCUUID == "" {
		c.VPCUUID = DefaultVPC(c.RegionSlug)
	}
	if c.IPv4 == "" {
		c.IPv4 = d.newIPv4()
	}
	if c.Endpoint == "" {
		c.Endpoint = endpoint(c.ID)
		if d.loopback {
			c.Endpoint = LoopbackEndpoint
		}
	}
	c.Tags = clusterTags(c.Tags, c.ID)
	if c.MaintenancePolicy == nil {
		c.MaintenancePolicy = &godo.KubernetesMaintenancePolicy{StartTime: "00:00", Day: godo.KubernetesMaintenanceDayAny}
	}
	if c.MaintenancePolicy.StartTime == "" {
		c.MaintenancePolicy.StartTime = "00:00"
	}
	c.MaintenancePolicy.Duration = maintenanceDuration
	setPluginDefaults(c)
	if c.Status == nil || c.Status.State == "" {
		c.Status = &godo.KubernetesClusterStatus{State: stateRunning}
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = t
	}
	for _, p := range c.NodePools {
		d.poolAPI.fill(c.ID, p, stateRunning)
	}
}

// setPluginDefaults gives a cluster the objects DigitalOcean reports for a cluster created
// without them; the values are the fake's choice (everything disabled).
func setPluginDefaults(c *godo.KubernetesCluster) {
	if c.ControlPlaneFirewall == nil {
		c.ControlPlaneFirewall = &godo.KubernetesControlPlaneFirewall{Enabled: godo.PtrTo(false), AllowedAddresses: []string{}}
	}
	if c.RoutingAgent == nil {
		c.RoutingAgent = &godo.KubernetesRoutingAgent{Enabled: godo.PtrTo(false)}
	}
	if c.AmdGpuDevicePlugin == nil {
		c.AmdGpuDevicePlugin = &godo.KubernetesAmdGpuDevicePlugin{Enabled: godo.PtrTo(false)}
	}
	if c.AmdGpuDeviceMetricsExporterPlugin == nil {
		c.AmdGpuDeviceMetricsExporterPlugin = &godo.KubernetesAmdGpuDeviceMetricsExporterPlugin{Enabled: godo.PtrTo(false)}
	}
	if c.NvidiaGpuDevicePlugin == nil {
		c.NvidiaGpuDevicePlugin = &godo.KubernetesNvidiaGpuDevicePlugin{Enabled: godo.PtrTo(false)}
	}
	if c.RdmaSharedDevicePlugin == nil {
		c.RdmaSharedDevicePlugin = &godo.KubernetesRdmaSharedDevicePlugin{Enabled: godo.PtrTo(false)}
	}
}

// ownTag tells the tags DigitalOcean adds itself, which a client cannot set or remove.
func ownTag(t string) bool { return t == "k8s" || strings.HasPrefix(t, "k8s:") }

// clusterTags are a client's tags followed by the ones DigitalOcean adds to a cluster.
func clusterTags(tags []string, clusterID string) []string {
	return withOwnTags(tags, "k8s", "k8s:"+clusterID)
}

// poolTags are a client's tags followed by the ones DigitalOcean adds to a node pool.
func poolTags(tags []string, clusterID string) []string {
	return withOwnTags(tags, "k8s", "k8s:"+clusterID, "k8s:worker")
}

func withOwnTags(tags []string, own ...string) []string {
	out := make([]string, 0, len(tags)+len(own))
	for _, t := range tags {
		if !ownTag(t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return append(out, own...)
}

func endpoint(clusterID string) string { return "https://" + clusterID + ".k8s.ondigitalocean.com" }
