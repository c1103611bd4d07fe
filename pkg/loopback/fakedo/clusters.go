package fakedo

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/digitalocean/godo"
)

// clusterAPI serves Kubernetes clusters, /v2/kubernetes/clusters: their creation, reads (which
// count as polls of a provisioning cluster), updates, upgrades (upgrades.go) and deletion.
type clusterAPI struct{ *store }

// Clusters are the clusters, oldest first, as the API would report them.
func (d *DO) Clusters() []godo.KubernetesCluster {
	defer d.s.lock()()
	out := make([]godo.KubernetesCluster, 0, len(d.s.order))
	for _, id := range d.s.order {
		out = append(out, clone(d.s.clusters[id].c))
	}
	return out
}

// Cluster is the cluster with id, and whether it exists.
func (d *DO) Cluster(id string) (godo.KubernetesCluster, bool) {
	defer d.s.lock()()
	cl, ok := d.s.clusters[id]
	if !ok {
		return godo.KubernetesCluster{}, false
	}
	return clone(cl.c), true
}

// ClusterNamed is the oldest cluster named name, and whether there is one.
func (d *DO) ClusterNamed(name string) (godo.KubernetesCluster, bool) {
	defer d.s.lock()()
	for _, id := range d.s.order {
		if d.s.clusters[id].c.Name == name {
			return clone(d.s.clusters[id].c), true
		}
	}
	return godo.KubernetesCluster{}, false
}

// SeedCluster puts a running cluster in, as if created earlier, filling what a create would
// (ids, DigitalOcean's tags, defaults, nodes for each pool's count); it keeps a given id and
// replaces a cluster that has it. It returns the cluster's id.
func (d *DO) SeedCluster(c godo.KubernetesCluster) string {
	defer d.s.lock()()
	c = clone(c)
	if c.ID == "" {
		c.ID = newUUID()
	}
	if c.VPCUUID != "" {
		if _, ok := d.s.vpcAPI.find(c.VPCUUID); !ok {
			region := c.RegionSlug
			if region == "" {
				region = d.s.account.firstRegion()
			}
			d.s.vpcs[c.VPCUUID] = d.s.vpcAPI.newVPC(c.VPCUUID, "seeded-"+region, region, "10.130.0.0/20", false)
		}
	}
	cl := &cluster{c: c, poolPending: map[string]int{}}
	d.s.clusterAPI.fill(&cl.c)
	if _, ok := d.s.clusters[c.ID]; !ok {
		d.s.order = append(d.s.order, c.ID)
	}
	d.s.clusters[c.ID] = cl
	return c.ID
}

// EditCluster changes a cluster behind its clients' backs (an autoscaler's count, an automatic
// patch upgrade, a tag edited in the console), then fills what the edit left out as SeedCluster
// does: a pool whose count changed gets or loses running nodes. It tells whether the cluster
// exists.
func (d *DO) EditCluster(id string, edit func(*godo.KubernetesCluster)) bool {
	defer d.s.lock()()
	cl, ok := d.s.clusters[id]
	if !ok {
		return false
	}
	c := clone(cl.c)
	edit(&c)
	c.ID = id
	c.UpdatedAt = now()
	d.s.clusterAPI.fill(&c)
	cl.c = c
	d.s.clusterAPI.forgetPending(cl)
	return true
}

// createRequest is a create as godo sends it. Its maintenance policy is read field by field, so
// a missing or unknown day is the fake's 422 rather than a decoding error; the RDMA plugin is
// read under godo's key and under the provider's attribute name.
type createRequest struct {
	godo.KubernetesClusterCreateRequest
	MaintenancePolicy *maintenance                           `json:"maintenance_policy"`
	RdmaAlias         *godo.KubernetesRdmaSharedDevicePlugin `json:"rdma_shared_device_plugin"`
}

type maintenance struct {
	Day       *string `json:"day"`
	StartTime *string `json:"start_time"`
}

// applyMaintenance changes the day and start time a client gave (an empty one is not given) and
// reports the fake's wording of what is wrong.
func applyMaintenance(p *godo.KubernetesMaintenancePolicy, m maintenance) string {
	if m.Day != nil && *m.Day != "" {
		day, err := godo.KubernetesMaintenanceToDay(*m.Day)
		if err != nil {
			return "validation error: invalid maintenance policy day"
		}
		p.Day = day
	}
	if m.StartTime != nil && *m.StartTime != "" {
		if _, err := time.Parse("15:04", *m.StartTime); err != nil {
			return "validation error: invalid maintenance policy start time"
		}
		p.StartTime = *m.StartTime
	}
	p.Duration = maintenanceDuration
	return ""
}

func (d clusterAPI) create(w http.ResponseWriter, body []byte) {
	var req createRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	version := req.VersionSlug
	if version == "latest" {
		version = d.account.latestVersion()
	}
	id := newUUID()
	c := godo.KubernetesCluster{
		ID:                                id,
		Name:                              req.Name,
		RegionSlug:                        req.RegionSlug,
		VersionSlug:                       version,
		ClusterSubnet:                     req.ClusterSubnet,
		ServiceSubnet:                     req.ServiceSubnet,
		VPCUUID:                           req.VPCUUID,
		Tags:                              req.Tags,
		HA:                                req.HA != nil && *req.HA,
		MaintenancePolicy:                 &godo.KubernetesMaintenancePolicy{StartTime: "00:00", Day: godo.KubernetesMaintenanceDayAny},
		AutoUpgrade:                       req.AutoUpgrade,
		SurgeUpgrade:                      req.SurgeUpgrade,
		ControlPlaneFirewall:              req.ControlPlaneFirewall,
		ClusterAutoscalerConfiguration:    normAutoscaler(req.ClusterAutoscalerConfiguration),
		RoutingAgent:                      req.RoutingAgent,
		AmdGpuDevicePlugin:                req.AmdGpuDevicePlugin,
		AmdGpuDeviceMetricsExporterPlugin: req.AmdGpuDeviceMetricsExporterPlugin,
		NvidiaGpuDevicePlugin:             req.NvidiaGpuDevicePlugin,
		RdmaSharedDevicePlugin:            req.RdmaSharedDevicePlugin,
		Status:                            &godo.KubernetesClusterStatus{State: stateProvisioning},
	}
	if c.RdmaSharedDevicePlugin == nil {
		c.RdmaSharedDevicePlugin = req.RdmaAlias
	}
	msg := d.checkCreate(&c)
	if msg == "" && req.MaintenancePolicy != nil {
		msg = applyMaintenance(c.MaintenancePolicy, *req.MaintenancePolicy)
	}
	if msg == "" && len(req.NodePools) == 0 {
		msg = "validation error: a cluster needs at least one node pool"
	}
	for _, p := range req.NodePools {
		if msg == "" && p != nil {
			msg = d.poolAPI.check(p.Name, p.Size, p.Count, p.AutoScale, p.MinNodes, p.MaxNodes)
		}
	}
	if msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	normPlugins(&c)
	for _, p := range req.NodePools {
		if p != nil {
			c.NodePools = append(c.NodePools, newPool(*p))
		}
	}
	d.fill(&c)
	// fill makes the nodes of a running cluster; a created one's are provisioning.
	cl := &cluster{c: c, pending: d.provisionPolls, poolPending: map[string]int{}}
	for _, p := range cl.c.NodePools {
		for _, n := range p.Nodes {
			n.Status.State = stateProvisioning
		}
		cl.poolPending[p.ID] = d.provisionPolls
	}
	d.clusters[id] = cl
	d.order = append(d.order, id)
	writeJSON(w, http.StatusCreated, map[string]any{"kubernetes_cluster": cl.c})
}

// checkCreate reports, in the fake's wording, what DigitalOcean would refuse in a new cluster.
func (d clusterAPI) checkCreate(c *godo.KubernetesCluster) string {
	switch {
	case c.Name == "":
		return "validation error: name is required"
	case !slices.Contains(d.regions, c.RegionSlug):
		return "validation error: invalid region"
	case !slices.Contains(d.versions, c.VersionSlug):
		return "validation error: invalid version slug"
	}
	if c.VPCUUID != "" {
		v, ok := d.vpcAPI.find(c.VPCUUID)
		if !ok {
			return "validation error: invalid vpc_uuid"
		}
		if v.RegionSlug != c.RegionSlug {
			return "validation error: vpc_uuid is not in the cluster's region"
		}
	}
	for name, subnet := range map[string]string{"cluster_subnet": c.ClusterSubnet, "service_subnet": c.ServiceSubnet} {
		if subnet != "" {
			if _, _, err := net.ParseCIDR(subnet); err != nil {
				return "validation error: invalid " + name
			}
		}
	}
	return checkAutoscaler(c.ClusterAutoscalerConfiguration)
}

func checkAutoscaler(a *godo.KubernetesClusterAutoscalerConfiguration) string {
	if a == nil {
		return ""
	}
	if t := a.ScaleDownUtilizationThreshold; t != nil && (*t < 0 || *t > 1) {
		return "validation error: scale_down_utilization_threshold must be between 0 and 1"
	}
	if u := a.ScaleDownUnneededTime; u != nil {
		if _, err := time.ParseDuration(*u); err != nil {
			return "validation error: invalid scale_down_unneeded_time"
		}
	}
	return ""
}

// normAutoscaler unsets the zero settings and drops a configuration with none left.
func normAutoscaler(a *godo.KubernetesClusterAutoscalerConfiguration) *godo.KubernetesClusterAutoscalerConfiguration {
	if a == nil {
		return nil
	}
	out := *a
	if out.ScaleDownUtilizationThreshold != nil && *out.ScaleDownUtilizationThreshold == 0 {
		out.ScaleDownUtilizationThreshold = nil
	}
	if out.ScaleDownUnneededTime != nil && *out.ScaleDownUnneededTime == "" {
		out.ScaleDownUnneededTime = nil
	}
	if len(out.Expanders) == 0 {
		out.Expanders = nil
	}
	if out.ScaleDownUtilizationThreshold == nil && out.ScaleDownUnneededTime == nil && out.Expanders == nil {
		return nil
	}
	return &out
}

// normPlugins reads an "enabled" a create left out as false and a missing address list as empty.
func normPlugins(c *godo.KubernetesCluster) {
	setPluginDefaults(c)
	for _, e := range pluginSwitches(c) {
		if *e == nil {
			*e = godo.PtrTo(false)
		}
	}
	if c.ControlPlaneFirewall.AllowedAddresses == nil {
		c.ControlPlaneFirewall.AllowedAddresses = []string{}
	}
}

// pluginSwitches are the "enabled" of a cluster's firewall and plugins, which must all be set.
func pluginSwitches(c *godo.KubernetesCluster) []**bool {
	return []**bool{
		&c.ControlPlaneFirewall.Enabled, &c.RoutingAgent.Enabled, &c.AmdGpuDevicePlugin.Enabled,
		&c.AmdGpuDeviceMetricsExporterPlugin.Enabled, &c.NvidiaGpuDevicePlugin.Enabled, &c.RdmaSharedDevicePlugin.Enabled,
	}
}

func (d clusterAPI) get(w http.ResponseWriter, id string) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	d.advance(cl)
	for _, p := range cl.c.NodePools {
		d.poolAPI.advance(cl, p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"kubernetes_cluster": cl.c})
}

// advance counts a poll of a provisioning cluster, which runs once its polls are used up.
func (d clusterAPI) advance(cl *cluster) {
	if d.hold || cl.c.Status.State != stateProvisioning {
		return
	}
	if cl.pending > 0 {
		cl.pending--
		return
	}
	cl.c.Status = &godo.KubernetesClusterStatus{State: stateRunning}
	cl.c.UpdatedAt = now()
}

// advance counts a poll of a pool with provisioning nodes, which run once its polls are used up.
func (d poolAPI) advance(cl *cluster, p *godo.KubernetesNodePool) {
	if d.hold || !provisioning(p) {
		return
	}
	if n := cl.poolPending[p.ID]; n > 0 {
		cl.poolPending[p.ID] = n - 1
		return
	}
	delete(cl.poolPending, p.ID)
	t := now()
	for _, n := range p.Nodes {
		// A node an upgrade restarts runs when the upgrade ends (upgraderun.go).
		if n.Status.State == stateProvisioning && !cl.restarting(n.ID) {
			n.Status.State = stateRunning
			n.UpdatedAt = t
		}
	}
}

func provisioning(p *godo.KubernetesNodePool) bool {
	return slices.ContainsFunc(p.Nodes, func(n *godo.KubernetesNode) bool {
		return n.Status != nil && n.Status.State == stateProvisioning
	})
}

func (d clusterAPI) list(w http.ResponseWriter, r *http.Request) {
	lo, hi, links := paginate(r, len(d.order))
	page := make([]godo.KubernetesCluster, 0, hi-lo)
	for _, id := range d.order[lo:hi] {
		page = append(page, d.clusters[id].c)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"kubernetes_clusters": page,
		"links":               links,
		"meta":                map[string]int{"total": len(d.order)},
	})
}

// paginate reads page and per_page as DigitalOcean does (20 a page unless asked, at most 200)
// and makes the links godo follows: absolute URLs whose query carries the page.
func paginate(r *http.Request, total int) (lo, hi int, links *godo.Links) {
	q := r.URL.Query()
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 20
	}
	per = min(per, 200)
	last := max(1, (total+per-1)/per)
	lo = min((page-1)*per, total)
	hi = min(lo+per, total)
	at := func(n int) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path,
			RawQuery: url.Values{"page": {strconv.Itoa(n)}, "per_page": {strconv.Itoa(per)}}.Encode()}
		return u.String()
	}
	pages := godo.Pages{}
	if page > 1 {
		pages.First, pages.Prev = at(1), at(min(page-1, last))
	}
	if page < last {
		pages.Next, pages.Last = at(page+1), at(last)
	}
	links = &godo.Links{}
	if pages != (godo.Pages{}) {
		links.Pages = &pages
	}
	return lo, hi, links
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// update changes only the keys present, reading nulls and zero values as the package
// comment says; nothing changes when any key is refused.
func (d clusterAPI) update(w http.ResponseWriter, id string, body []byte) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	c := clone(cl.c)
	for key, raw := range keys {
		msg, err := d.applyClusterKey(&c, key, raw)
		if err != nil {
			d.fail(w, http.StatusBadRequest, "invalid request body: %s: %v", key, err)
			return
		}
		if msg != "" {
			d.invalid(w, "%s", msg)
			return
		}
	}
	if msg := checkAutoscaler(c.ClusterAutoscalerConfiguration); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	c.UpdatedAt = now()
	cl.c = c
	writeJSON(w, http.StatusAccepted, map[string]any{"kubernetes_cluster": cl.c})
}

// applyClusterKey changes c as one key of an update says: a refusal in the fake's wording, or an
// error when the value is not what godo would send.
func (d clusterAPI) applyClusterKey(c *godo.KubernetesCluster, key string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		switch key {
		case "tags":
			c.Tags = clusterTags(nil, c.ID)
		}
		// Any other null says nothing.
		return "", nil
	}
	setBool := func(dst *bool) (string, error) { return "", json.Unmarshal(raw, dst) }
	switch key {
	case "name":
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return "", err
		}
		if name == "" {
			return "validation error: name is required", nil
		}
		c.Name = name
	case "tags":
		var tags []string
		if err := json.Unmarshal(raw, &tags); err != nil {
			return "", err
		}
		c.Tags = clusterTags(tags, c.ID)
	case "maintenance_policy":
		var m maintenance
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		return applyMaintenance(c.MaintenancePolicy, m), nil
	case "auto_upgrade":
		return setBool(&c.AutoUpgrade)
	case "surge_upgrade":
		return setBool(&c.SurgeUpgrade)
	case "ha":
		var ha bool
		if err := json.Unmarshal(raw, &ha); err != nil {
			return "", err
		}
		if c.HA && !ha {
			return "validation error: high availability cannot be disabled once enabled", nil
		}
		c.HA = ha
	case "control_plane_firewall":
		var f map[string]json.RawMessage
		if err := json.Unmarshal(raw, &f); err != nil {
			return "", err
		}
		if err := setEnabled(f, &c.ControlPlaneFirewall.Enabled); err != nil {
			return "", err
		}
		if v, ok := f["allowed_addresses"]; ok {
			var addrs []string
			if err := json.Unmarshal(v, &addrs); err != nil {
				return "", err
			}
			c.ControlPlaneFirewall.AllowedAddresses = append([]string{}, addrs...)
		}
	case "cluster_autoscaler_configuration":
		return "", applyAutoscaler(c, raw)
	case "routing_agent":
		return "", setEnabledRaw(raw, &c.RoutingAgent.Enabled)
	case "amd_gpu_device_plugin":
		return "", setEnabledRaw(raw, &c.AmdGpuDevicePlugin.Enabled)
	case "amd_gpu_device_metrics_exporter_plugin":
		return "", setEnabledRaw(raw, &c.AmdGpuDeviceMetricsExporterPlugin.Enabled)
	case "nvidia_gpu_device_plugin":
		return "", setEnabledRaw(raw, &c.NvidiaGpuDevicePlugin.Enabled)
	case "rdma_shared_dev_plugin", "rdma_shared_device_plugin":
		return "", setEnabledRaw(raw, &c.RdmaSharedDevicePlugin.Enabled)
	}
	// Keys DigitalOcean does not change through an update (region, version, vpc_uuid...) are
	// ignored, as unknown keys are.
	return "", nil
}

func setEnabledRaw(raw json.RawMessage, enabled **bool) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return err
	}
	return setEnabled(f, enabled)
}

// setEnabled changes an object's "enabled" when it is sent and not null.
func setEnabled(f map[string]json.RawMessage, enabled **bool) error {
	v, ok := f["enabled"]
	if !ok || isNull(v) {
		return nil
	}
	var on bool
	if err := json.Unmarshal(v, &on); err != nil {
		return err
	}
	*enabled = &on
	return nil
}

// applyAutoscaler merges a sent autoscaler configuration into the stored one: a null setting
// says nothing, a zero one unsets it.
func applyAutoscaler(c *godo.KubernetesCluster, raw json.RawMessage) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return err
	}
	a := godo.KubernetesClusterAutoscalerConfiguration{}
	if c.ClusterAutoscalerConfiguration != nil {
		a = *c.ClusterAutoscalerConfiguration
	}
	if v, ok := f["scale_down_utilization_threshold"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &a.ScaleDownUtilizationThreshold); err != nil {
			return err
		}
	}
	if v, ok := f["scale_down_unneeded_time"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &a.ScaleDownUnneededTime); err != nil {
			return err
		}
	}
	if v, ok := f["expanders"]; ok {
		a.Expanders = nil
		if err := json.Unmarshal(v, &a.Expanders); err != nil {
			return err
		}
	}
	c.ClusterAutoscalerConfiguration = normAutoscaler(&a)
	return nil
}

func (d clusterAPI) delete(w http.ResponseWriter, id string) {
	if _, ok := d.clusters[id]; !ok {
		d.notFound(w)
		return
	}
	delete(d.clusters, id)
	d.order = slices.DeleteFunc(d.order, func(o string) bool { return o == id })
	w.WriteHeader(http.StatusNoContent)
}

// associatedResources are the load balancers, volumes and snapshots a cluster made: the fake's
// clusters make none.
func (d clusterAPI) associatedResources(w http.ResponseWriter, id string) {
	if _, ok := d.clusters[id]; !ok {
		d.notFound(w)
		return
	}
	none := []*godo.AssociatedResource{}
	writeJSON(w, http.StatusOK, godo.KubernetesAssociatedResources{Volumes: none, VolumeSnapshots: none, LoadBalancers: none})
}
