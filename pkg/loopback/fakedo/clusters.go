package fakedo

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
	yaml "go.yaml.in/yaml/v3"
)

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

func (d *DO) createCluster(w http.ResponseWriter, body []byte) {
	var req createRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	version := req.VersionSlug
	if version == "latest" {
		version = d.latestVersion()
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
			msg = d.checkPool(p.Name, p.Size, p.Count, p.AutoScale, p.MinNodes, p.MaxNodes)
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
func (d *DO) checkCreate(c *godo.KubernetesCluster) string {
	switch {
	case c.Name == "":
		return "validation error: name is required"
	case !slices.Contains(d.regions, c.RegionSlug):
		return "validation error: invalid region"
	case !slices.Contains(d.versions, c.VersionSlug):
		return "validation error: invalid version slug"
	}
	if c.VPCUUID != "" {
		v, ok := d.vpc(c.VPCUUID)
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

func (d *DO) getCluster(w http.ResponseWriter, id string) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	d.advance(cl)
	for _, p := range cl.c.NodePools {
		d.advancePool(cl, p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"kubernetes_cluster": cl.c})
}

// advance counts a poll of a provisioning cluster, which runs once its polls are used up.
func (d *DO) advance(cl *cluster) {
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

// advancePool counts a poll of a pool with provisioning nodes, which run once its polls are used up.
func (d *DO) advancePool(cl *cluster, p *godo.KubernetesNodePool) {
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
		if n.Status.State == stateProvisioning {
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

func (d *DO) listClusters(w http.ResponseWriter, r *http.Request) {
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

// updateCluster changes only the keys present, reading nulls and zero values as the package
// comment says; nothing changes when any key is refused.
func (d *DO) updateCluster(w http.ResponseWriter, id string, body []byte) {
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
func (d *DO) applyClusterKey(c *godo.KubernetesCluster, key string, raw json.RawMessage) (string, error) {
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

func (d *DO) deleteCluster(w http.ResponseWriter, id string) {
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
func (d *DO) associatedResources(w http.ResponseWriter, id string) {
	if _, ok := d.clusters[id]; !ok {
		d.notFound(w)
		return
	}
	none := []*godo.AssociatedResource{}
	writeJSON(w, http.StatusOK, godo.KubernetesAssociatedResources{Volumes: none, VolumeSnapshots: none, LoadBalancers: none})
}

// expiry is how long credentials asked for by r last: expiry_seconds, or a week when it is
// missing or 0 (the provider sends 0 when its kubeconfig_expire_seconds is not set).
func expiry(r *http.Request) (time.Duration, error) {
	s := r.URL.Query().Get("expiry_seconds")
	if s == "" {
		return defaultCredentialSeconds * time.Second, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("validation error: invalid expiry_seconds %q", s)
	}
	if n == 0 {
		n = defaultCredentialSeconds
	}
	return time.Duration(n) * time.Second, nil
}

// CredentialPrefix starts every token the fake issues in a cluster's credentials, so that a test
// can look for a kubeconfig's token where it must not be (a state file, a log).
const CredentialPrefix = "fakedo-credential-"

// issue makes a cluster's credentials: a new token each time, the cluster's own CA.
func (d *DO) issue(w http.ResponseWriter, r *http.Request, id string) (*godo.KubernetesClusterCredentials, *cluster, bool) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return nil, nil, false
	}
	ttl, err := expiry(r)
	if err != nil {
		d.invalid(w, "%v", err)
		return nil, nil, false
	}
	if cl.caPEM == nil {
		creds, err := fakecloud.NewCredentials(cl.c.ID)
		if err != nil {
			d.fail(w, http.StatusInternalServerError, "make the cluster's certificate authority: %v", err)
			return nil, nil, false
		}
		cl.caPEM = creds.CA
	}
	return &godo.KubernetesClusterCredentials{
		Server:                   cl.c.Endpoint,
		CertificateAuthorityData: slices.Clone(cl.caPEM),
		Token:                    CredentialPrefix + randomToken(),
		ExpiresAt:                time.Now().UTC().Add(ttl).Truncate(time.Second),
	}, cl, true
}

func (d *DO) credentials(w http.ResponseWriter, r *http.Request, id string) {
	if creds, _, ok := d.issue(w, r, id); ok {
		d.realCredentials(id, creds)
		writeJSON(w, http.StatusOK, creds)
	}
}

// kubeconfig is the YAML DigitalOcean serves for kubectl, with a token user.
func (d *DO) kubeconfig(w http.ResponseWriter, r *http.Request, id string) {
	creds, cl, ok := d.issue(w, r, id)
	if !ok {
		return
	}
	if kc, ok := d.servedKubeconfig(id); ok {
		w.Header().Set("Content-Type", "text/yaml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(kc)
		return
	}
	name := "do-" + cl.c.RegionSlug + "-" + cl.c.Name
	user := name + "-admin"
	config := map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters": []any{map[string]any{"name": name, "cluster": map[string]string{
			"server": creds.Server, "certificate-authority-data": base64.StdEncoding.EncodeToString(creds.CertificateAuthorityData),
		}}},
		"contexts":        []any{map[string]any{"name": name, "context": map[string]string{"cluster": name, "user": user}}},
		"current-context": name,
		"users":           []any{map[string]any{"name": user, "user": map[string]string{"token": creds.Token}}},
	}
	out, err := yaml.Marshal(config)
	if err != nil {
		d.fail(w, http.StatusInternalServerError, "render the kubeconfig: %v", err)
		return
	}
	w.Header().Set("Content-Type", "text/yaml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// upgrade moves a cluster to a later offered version, in its minor release or the next one.
func (d *DO) upgrade(w http.ResponseWriter, id string, body []byte) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	var req godo.KubernetesClusterUpgradeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	if msg := d.checkUpgrade(cl.c.VersionSlug, req.VersionSlug); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	cl.c.VersionSlug = req.VersionSlug
	cl.c.UpdatedAt = now()
	w.WriteHeader(http.StatusAccepted)
}

// checkUpgrade reports, in the fake's wording, why from cannot be upgraded to to.
func (d *DO) checkUpgrade(from, to string) string {
	if !slices.Contains(d.versions, to) {
		return fmt.Sprintf("invalid upgrade path: version %q is not available", to)
	}
	cur, okCur := parseVersion(from)
	next, okNext := parseVersion(to)
	switch {
	case !okCur || !okNext:
		return fmt.Sprintf("invalid upgrade path: from %s to %s", from, to)
	case !cur.less(next):
		return fmt.Sprintf("invalid upgrade path: %s is not later than %s", to, from)
	case next[0] != cur[0] || next[1] > cur[1]+1:
		return fmt.Sprintf("invalid upgrade path: %s skips a minor release after %s", to, from)
	}
	return ""
}

// upgrades are the versions checkUpgrade allows, oldest first.
func (d *DO) upgrades(w http.ResponseWriter, id string) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return
	}
	out := []*godo.KubernetesVersion{}
	for _, v := range d.sortedVersions() {
		if d.checkUpgrade(cl.c.VersionSlug, v) == "" {
			out = append(out, kubernetesVersion(v))
		}
	}
	slices.Reverse(out)
	writeJSON(w, http.StatusOK, map[string]any{"available_upgrade_versions": out})
}

// version is a slug such as 1.31.9-do.2 as numbers: major, minor, patch, DigitalOcean's revision.
type version [4]int

func parseVersion(slug string) (version, bool) {
	upstream, rev, ok := strings.Cut(slug, "-do.")
	parts := strings.Split(upstream, ".")
	if !ok || len(parts) != 3 {
		return version{}, false
	}
	var v version
	for i, s := range append(parts, rev) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return version{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) less(o version) bool { return slices.Compare(v[:], o[:]) < 0 }

// sortedVersions are the offered slugs, latest first, as DigitalOcean lists them; slugs that do
// not parse come last.
func (d *DO) sortedVersions() []string {
	out := slices.Clone(d.versions)
	slices.SortStableFunc(out, func(a, b string) int {
		va, okA := parseVersion(a)
		vb, okB := parseVersion(b)
		switch {
		case okA && okB:
			return slices.Compare(vb[:], va[:])
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	return out
}

func (d *DO) latestVersion() string {
	if v := d.sortedVersions(); len(v) > 0 {
		return v[0]
	}
	return ""
}

func kubernetesVersion(slug string) *godo.KubernetesVersion {
	upstream, _, _ := strings.Cut(slug, "-do.")
	return &godo.KubernetesVersion{
		Slug:              slug,
		KubernetesVersion: upstream,
		// The fake's choice of features; DigitalOcean's list varies by release.
		SupportedFeatures: []string{"cluster-autoscaler", "docr-integration", "ha-control-plane", "token-authentication"},
	}
}
