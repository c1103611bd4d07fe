package fakecivo

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	corev1 "k8s.io/api/core/v1"
)

// fakeCluster is a cluster as the fake stores it. Its pools live in Civo.pools; what a read
// derives (status, ready, pools, required_pools, instances, num_target_nodes,
// target_nodes_size, upgrade_available_to) is computed when it is reported.
type fakeCluster struct {
	c      civogo.KubernetesCluster
	region string // "" is every region
	seq    int

	// building is true until the cluster has answered BUILDING to pending GETs (and Hold is off).
	building bool
	pending  int
	// upgrading is how many more GETs answer UPGRADING.
	upgrading int
	// deleted clusters answer DELETING to deleting more GETs, then 404.
	deleted  bool
	deleting int
	// overridden, set by EditCluster, makes status and ready what the test said.
	overridden bool
	status     string
	ready      bool
}

type fakePool struct {
	pool    civogo.KubernetesPool
	pending int
	seq     int
	// named is how many instance names the pool has given (setNodes).
	named int
}

// apiError is a refusal: its status, Civo's code and the fake's reason.
type apiError struct {
	status       int
	code, reason string
}

func badRequest(code, format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, code, fmt.Sprintf(format, args...)}
}

func (f *Civo) refuse(q *request, e *apiError) { f.fail(q.w, e.status, e.code, e.reason) }

// clusterNameRE is what the fake accepts as a cluster name: 1 to 63 letters, digits, '-', '.' or
// '_', starting with a letter or digit.
var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// setNodes gives the pool n nodes: the first ones stay as they are (a node keeps its name for
// life, as Civo's instances do), new ones are named after a counter that never goes back, so a
// deleted instance's name is never given again (instances.go).
func (p *fakePool) setNodes(n, pending int) {
	p.pool.Count = n
	p.pending = pending
	p.pool.Instances = p.pool.Instances[:min(n, len(p.pool.Instances))]
	p.named = max(p.named, len(p.pool.Instances))
	for len(p.pool.Instances) < n {
		name := fmt.Sprintf("k3s-%s-node-%d", p.pool.ID, p.named)
		p.named++
		p.pool.Instances = append(p.pool.Instances, civogo.KubernetesInstance{ID: name, Hostname: name, Size: p.pool.Size})
	}
	p.pool.InstanceNames = nil
	for _, in := range p.pool.Instances {
		p.pool.InstanceNames = append(p.pool.InstanceNames, in.ID)
	}
}

// clonePool copies a pool so that no map or slice is shared.
func clonePool(p civogo.KubernetesPool) civogo.KubernetesPool {
	p.Labels = maps.Clone(p.Labels)
	p.Annotations = maps.Clone(p.Annotations)
	p.Taints = slices.Clone(p.Taints)
	p.InstanceNames = slices.Clone(p.InstanceNames)
	p.Instances = slices.Clone(p.Instances)
	for i := range p.Instances {
		p.Instances[i].Tags = slices.Clone(p.Instances[i].Tags)
	}
	return p
}

// userLabels drops the label Civo sets itself, which a client that read a pool may send back.
func userLabels(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	delete(out, civoPoolLabel)
	return out
}

// renderPool is the pool as Civo reports it: Civo's own label added, each node ACTIVE unless it
// is still being built (a new or scaled pool, a cluster still building, NeverReady).
func (f *Civo) renderPool(cid string, p *fakePool) civogo.KubernetesPool {
	out := clonePool(p.pool)
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels[civoPoolLabel] = p.pool.ID
	building := f.NeverReady || p.pending > 0
	if fc, ok := f.clusters[cid]; ok && fc.building {
		building = true
	}
	for i := range out.Instances {
		out.Instances[i].Status = "ACTIVE"
		if building {
			out.Instances[i].Status = "BUILDING"
		}
	}
	return out
}

// poolsOf are the pools of cluster cid, oldest first.
func (f *Civo) poolsOf(cid string) []*fakePool {
	var out []*fakePool
	for key, p := range f.pools {
		if strings.HasPrefix(key, cid+"/") {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// renderCluster is the cluster as Civo reports it. It changes nothing; the caller copies it if
// it leaves the lock.
func (f *Civo) renderCluster(fc *fakeCluster) civogo.KubernetesCluster {
	out := fc.c
	out.KubernetesVersion = out.Version
	out.UpgradeAvailableTo = f.upgradeTo(out.Version, out.ClusterType)
	scaling := false
	for i, p := range f.poolsOf(fc.c.ID) {
		rp := f.renderPool(fc.c.ID, p)
		if i == 0 {
			out.NumTargetNode, out.TargetNodeSize = rp.Count, rp.Size
		}
		out.Pools = append(out.Pools, rp)
		out.RequiredPools = append(out.RequiredPools, civogo.RequiredPools{ID: rp.ID, Size: rp.Size, Count: rp.Count,
			Labels: maps.Clone(p.pool.Labels), Annotations: maps.Clone(p.pool.Annotations), Taints: slices.Clone(p.pool.Taints),
			PublicIPNodePool: rp.PublicIPNodePool})
		out.Instances = append(out.Instances, rp.Instances...)
		scaling = scaling || p.pending > 0
	}
	switch {
	case fc.deleted:
		out.Status = "DELETING"
	case fc.building:
		out.Status = "BUILDING"
	case fc.upgrading > 0:
		out.Status = "UPGRADING"
	case scaling:
		out.Status = "SCALING"
	default:
		out.Status = "ACTIVE"
	}
	out.Ready = !fc.building && !fc.deleted
	if fc.overridden {
		out.Status, out.Ready = fc.status, fc.ready
	}
	return out
}

// clusterIn is the cluster with id found by a request about region; a deleted one only when
// deleted is true.
func (f *Civo) clusterIn(id, region string, deleted bool) (*fakeCluster, bool) {
	fc, ok := f.clusters[id]
	if !ok || !inRegion(fc.region, region) || fc.deleted && !deleted {
		return nil, false
	}
	return fc, true
}

// clusterList are the clusters in region ("" for all), oldest first.
func (f *Civo) clusterList(region string) []*fakeCluster {
	var out []*fakeCluster
	for _, fc := range f.clusters {
		if inRegion(fc.region, region) {
			out = append(out, fc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (f *Civo) serveClusters(q *request, seg []string) {
	switch {
	case len(seg) == 0 && q.r.Method == http.MethodGet:
		f.listClusters(q)
	case len(seg) == 0 && q.r.Method == http.MethodPost:
		f.createCluster(q)
	case len(seg) == 1:
		fc, ok := f.clusterIn(seg[0], q.region, q.r.Method == http.MethodGet)
		if !ok {
			f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+seg[0]+" in "+q.region)
			return
		}
		switch q.r.Method {
		case http.MethodGet:
			out, ok := f.pollCluster(fc)
			if !ok {
				f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+seg[0]+" in "+q.region)
				return
			}
			writeJSON(q.w, http.StatusOK, out)
		case http.MethodPut:
			f.updateCluster(q, fc)
		case http.MethodDelete:
			f.deleteCluster(q, fc)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
	case len(seg) >= 2 && seg[1] == "pools":
		f.servePools(q, seg[0], seg[2:])
	default:
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
	}
}

// listClusters answers one page, as civogo's ListKubernetesClusters reads it (it asks for no
// page, so it sees the first per_page clusters only, as it would on Civo).
func (f *Civo) listClusters(q *request) {
	page, perPage := 1, 20
	if n, err := strconv.Atoi(q.r.URL.Query().Get("page")); err == nil && n > 0 {
		page = n
	}
	if n, err := strconv.Atoi(q.r.URL.Query().Get("per_page")); err == nil && n > 0 {
		perPage = min(n, 100)
	}
	all := f.clusterList(q.region)
	out := civogo.PaginatedKubernetesClusters{Page: page, PerPage: perPage, Pages: max(1, (len(all)+perPage-1)/perPage),
		Items: []civogo.KubernetesCluster{}}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		out.Items = append(out.Items, f.renderCluster(all[i]))
	}
	writeJSON(q.w, http.StatusOK, out)
}

// pollCluster is a GET of the cluster: the read, and the progress it counts as. It reports false
// once a deleted cluster is gone.
func (f *Civo) pollCluster(fc *fakeCluster) (civogo.KubernetesCluster, bool) {
	if fc.deleted {
		if fc.deleting <= 0 {
			delete(f.clusters, fc.c.ID)
			return civogo.KubernetesCluster{}, false
		}
		fc.deleting--
		return f.renderCluster(fc), true
	}
	if fc.building && !f.held && fc.pending <= 0 {
		fc.building = false
		fc.c.BuiltAt = time.Now().UTC().Truncate(time.Second)
	}
	// A read of the cluster is a poll of its pools too, as a read of a pool is.
	for _, p := range f.poolsOf(fc.c.ID) {
		if p.pending > 0 {
			p.pending--
		}
	}
	out := f.renderCluster(fc)
	if fc.building && !f.held {
		fc.pending--
	}
	if fc.upgrading > 0 {
		fc.upgrading--
	}
	return out, true
}

func (f *Civo) createCluster(q *request) {
	var cfg civogo.KubernetesClusterConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	fc, e := f.newCluster(q.region, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}
	writeJSON(q.w, http.StatusOK, f.renderCluster(fc))
}

// newCluster checks a create and, when nothing is wrong, makes the cluster, its pools and (when
// none is named) its firewall.
func (f *Civo) newCluster(region string, cfg civogo.KubernetesClusterConfig) (*fakeCluster, *apiError) {
	clusterType := cmp.Or(cfg.ClusterType, "k3s")
	if clusterType != "k3s" && clusterType != "talos" {
		return nil, badRequest("database_kubernetes_cluster_invalid", "cluster_type %q is not k3s or talos", clusterType)
	}
	name := cfg.Name
	if name == "" {
		name = fmt.Sprintf("cluster-%d", f.seq+1)
	}
	if !clusterNameRE.MatchString(name) {
		return nil, badRequest("kubernetes_cluster_invalid_name", "%q is not a valid cluster name", name)
	}
	for _, other := range f.clusters {
		if other.c.Name == name && inRegion(other.region, region) {
			return nil, &apiError{http.StatusConflict, "database_duplicate_cluster_name_not_allowed", "a cluster named " + name + " already exists in " + region}
		}
	}
	version := cmp.Or(cfg.KubernetesVersion, f.defaultVersion(clusterType))
	v, ok := f.version(version, clusterType)
	if !ok {
		return nil, badRequest("database_kubernetes_cluster_invalid_version", "%s is not a %s version Civo offers", version, clusterType)
	}
	if v.Type == "deprecated" {
		return nil, badRequest("database_kubernetes_cluster_invalid_version", "%s is deprecated: new clusters cannot use it", version)
	}
	cni := cmp.Or(cfg.CNIPlugin, "flannel")
	if cni != "flannel" && cni != "cilium" {
		return nil, badRequest("database_kubernetes_cluster_invalid", "cni_plugin %q is not flannel or cilium", cni)
	}
	if clusterType == "talos" && cni == "cilium" {
		return nil, badRequest("database_kubernetes_cluster_invalid", "talos clusters run flannel only")
	}
	network, firewallID, rules, e := f.clusterNetwork(region, cfg)
	if e != nil {
		return nil, e
	}
	pools, e := f.checkNewPools(cfg)
	if e != nil {
		return nil, e
	}
	apps, e := f.installApps(nil, cfg.Applications, true)
	if e != nil {
		return nil, e
	}

	id := f.newID("cluster")
	if firewallID == "" {
		firewallID = f.addFirewall(f.newID("firewall"), "k3s-cluster-"+name+"-"+id[:6], region, network.n.ID, rules).fw.ID
	}
	fc := &fakeCluster{region: region, seq: f.next(), building: f.BuildPolls > 0 || f.held, pending: f.BuildPolls}
	fc.c = civogo.KubernetesCluster{
		ID: id, Name: name, Version: version, ClusterType: clusterType, NetworkID: network.n.ID, FirewallID: firewallID,
		CNIPlugin: cni, Tags: strings.Fields(cfg.Tags), CreatedAt: time.Now().UTC().Truncate(time.Second),
		InstalledApplications: apps, CCMInstalled: "true", Conditions: []civogo.Condition{},
	}
	if !fc.building {
		fc.c.BuiltAt = fc.c.CreatedAt
	}
	f.fillAddresses(&fc.c)
	f.clusters[id] = fc
	for _, p := range pools {
		f.addPool(id, p, 0)
	}
	return fc, nil
}

// clusterNetwork checks a create's network and firewall: the network the cluster joins (the
// region's default when none is named), the firewall named (in that network), or else the rules
// of the firewall to make for it.
func (f *Civo) clusterNetwork(region string, cfg civogo.KubernetesClusterConfig) (*fakeNetwork, string, []civogo.FirewallRule, *apiError) {
	network := f.defaultNetwork(region)
	if cfg.NetworkID != "" {
		n, ok := f.networkIn(cfg.NetworkID, region)
		if !ok {
			return nil, "", nil, badRequest("database_network_not_found", "no network %s in %s", cfg.NetworkID, region)
		}
		network = n
	}
	// The provider names the firewall in instance_firewall; firewall_id says the same.
	firewallID := cmp.Or(cfg.FirewallID, cfg.InstanceFirewall)
	if firewallID != "" {
		fw, ok := f.firewallIn(firewallID, region)
		if !ok {
			return nil, "", nil, badRequest("database_firewall_not_found", "no firewall %s in %s", firewallID, region)
		}
		if fw.fw.NetworkID != network.n.ID {
			return nil, "", nil, badRequest("database_firewall_mismatch", "firewall %s is in network %s, not %s", firewallID, fw.fw.NetworkID, network.n.ID)
		}
		return network, firewallID, nil, nil
	}
	rules, reason := clusterRules(cfg.FirewallRule)
	if reason != "" {
		return nil, "", nil, badRequest("database_firewall_rules_invalid_params", "%s", reason)
	}
	return network, "", rules, nil
}

// checkNewPools checks a create's pools, one of the default size and count when none is given,
// and returns them.
func (f *Civo) checkNewPools(cfg civogo.KubernetesClusterConfig) ([]civogo.KubernetesClusterPoolConfig, *apiError) {
	pools := cfg.Pools
	if len(pools) == 0 {
		pools = []civogo.KubernetesClusterPoolConfig{{Count: cmp.Or(cfg.NumTargetNodes, defaultPoolCount), Size: cmp.Or(cfg.TargetNodesSize, defaultPoolSize)}}
	}
	seen := map[string]bool{}
	for _, p := range pools {
		if e := f.checkNewPool(p); e != nil {
			return nil, e
		}
		if p.ID != "" && seen[p.ID] {
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool id %q is given twice", p.ID)
		}
		seen[p.ID] = true
	}
	return pools, nil
}

// checkNewPool checks a pool about to be made.
func (f *Civo) checkNewPool(p civogo.KubernetesClusterPoolConfig) *apiError {
	if p.Size == "" {
		return badRequest("parameter_size_missing", "pool %q has no size", p.ID)
	}
	if !f.poolSize(p.Size) {
		return badRequest("database_size_not_found", "%s is not a Kubernetes node size Civo offers", p.Size)
	}
	if p.Count < 1 {
		return badRequest("database_kubernetes_cluster_invalid", "pool %q needs at least one node", p.ID)
	}
	return nil
}

// addPool makes a pool in cluster cid, its nodes building for pending polls.
func (f *Civo) addPool(cid string, cfg civogo.KubernetesClusterPoolConfig, pending int) *fakePool {
	if cfg.ID == "" {
		cfg.ID = f.newID("pool")
	}
	p := &fakePool{seq: f.next(), pool: civogo.KubernetesPool{ID: cfg.ID, Size: cfg.Size, Labels: userLabels(cfg.Labels),
		Taints: slices.Clone(cfg.Taints), PublicIPNodePool: cfg.PublicIPNodePool}}
	p.setNodes(cfg.Count, pending)
	f.pools[cid+"/"+cfg.ID] = p
	return p
}

// installApps is apps after a request's "applications": a comma-separated list of marketplace
// names, "name:plan" for a plan, "-name" to remove one. A new cluster (defaults) also gets the
// marketplace's default applications unless the list removes them.
func (f *Civo) installApps(apps []civogo.KubernetesInstalledApplication, spec string, defaults bool) ([]civogo.KubernetesInstalledApplication, *apiError) {
	out := deepCopy(apps)
	var add []string
	removed := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case strings.HasPrefix(item, "-"):
			removed[strings.TrimPrefix(item, "-")] = true
		default:
			add = append(add, item)
		}
	}
	if defaults {
		for _, a := range f.applications {
			if a.Default && !removed[a.Name] {
				add = append([]string{a.Name}, add...)
			}
		}
	}
	out = slices.DeleteFunc(out, func(a civogo.KubernetesInstalledApplication) bool { return removed[a.Name] })
	for _, item := range add {
		name, plan, _ := strings.Cut(item, ":")
		a, ok := f.application(name)
		if !ok {
			return nil, badRequest("database_kubernetes_application_not_found", "%q is not in the marketplace", name)
		}
		if plan != "" && !slices.ContainsFunc(a.Plans, func(p civogo.KubernetesMarketplacePlan) bool { return p.Label == plan }) {
			return nil, badRequest("database_kubernetes_application_invalid_plan", "%s has no plan %q", name, plan)
		}
		out = slices.DeleteFunc(out, func(i civogo.KubernetesInstalledApplication) bool { return i.Name == name })
		out = append(out, civogo.KubernetesInstalledApplication{Application: a.Name, Name: a.Name, Version: a.Version,
			Maintainer: a.Maintainer, Description: a.Description, Installed: true, URL: a.URL, Category: a.Category, Plan: plan})
	}
	return out, nil
}

// fillAddresses gives a cluster what Civo gives a new one: a master address (from TEST-NET-3),
// its API endpoint, a DNS name and a kubeconfig, where it has none.
func (f *Civo) fillAddresses(c *civogo.KubernetesCluster) {
	if c.MasterIP == "" {
		c.MasterIP = fmt.Sprintf("203.0.113.%d", f.next()%250+1)
		if f.loopback {
			c.MasterIP = "127.0.0.1"
		}
	}
	if c.APIEndPoint == "" {
		c.APIEndPoint = "https://" + c.MasterIP + ":6443"
		if f.loopback {
			c.APIEndPoint = "https://127.0.0.1:9" // nothing serves it: refused at once
		}
	}
	if c.DNSEntry == "" {
		c.DNSEntry = c.ID + ".k8s.civo.com"
	}
	if c.KubeConfig == "" {
		c.KubeConfig = kubeconfig(c.Name, c.ID, c.APIEndPoint)
	}
}

// kubeconfig is a kubeconfig shaped as Civo's are (a k3s admin's client certificate), with
// made-up credentials that parse as real ones do; "" when they cannot be made.
func kubeconfig(name, id, server string) string {
	creds, err := fakecloud.NewCredentials(id)
	if err != nil {
		return ""
	}
	enc := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	return fmt.Sprintf(`apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %s
    server: %s
  name: %s
contexts:
- context:
    cluster: %s
    user: %s
  name: %s
current-context: %s
kind: Config
preferences: {}
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
`, enc(creds.CA), server, name, name, name, name, name, name, enc(creds.ClientCert), enc(creds.ClientKey))
}

func (f *Civo) updateCluster(q *request, fc *fakeCluster) {
	var cfg civogo.KubernetesClusterConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	c := &fc.c
	// What is fixed at creation is refused rather than ignored, so a client that thinks it
	// changed it learns that it did not.
	for _, fixed := range []struct{ key, now, asked string }{
		{"network_id", c.NetworkID, cfg.NetworkID},
		{"cluster_type", c.ClusterType, cfg.ClusterType},
		{"cni_plugin", c.CNIPlugin, cfg.CNIPlugin},
	} {
		if q.has(fixed.key) && fixed.asked != fixed.now {
			f.refuse(q, badRequest("database_kubernetes_cluster_invalid", "%s cannot change from %q to %q", fixed.key, fixed.now, fixed.asked))
			return
		}
	}
	version, e := f.newVersion(q, c, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}
	name, e := f.newName(q, fc, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}
	firewallID := c.FirewallID
	if q.has("firewall_id") || q.has("instance_firewall") {
		asked := cmp.Or(cfg.FirewallID, cfg.InstanceFirewall)
		fw, ok := f.firewallIn(asked, q.region)
		if !ok {
			f.refuse(q, badRequest("database_firewall_not_found", "no firewall %s in %s", asked, q.region))
			return
		}
		if fw.fw.NetworkID != c.NetworkID {
			f.refuse(q, badRequest("database_firewall_mismatch", "firewall %s is in network %s, not %s", asked, fw.fw.NetworkID, c.NetworkID))
			return
		}
		firewallID = asked
	}
	apps := c.InstalledApplications
	if q.has("applications") {
		if apps, e = f.installApps(apps, cfg.Applications, false); e != nil {
			f.refuse(q, e)
			return
		}
	}
	apply, e := f.planPools(q, fc, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}

	// Everything is checked: change the cluster.
	if version != c.Version {
		c.Version = version
		fc.upgrading = f.BuildPolls
	}
	c.Name, c.FirewallID, c.InstalledApplications = name, firewallID, apps
	if q.has("tags") {
		c.Tags = strings.Fields(cfg.Tags)
	}
	apply()
	writeJSON(q.w, http.StatusOK, f.renderCluster(fc))
}

// newVersion is the version a cluster PUT leaves the cluster at: an upgrade to a version Civo
// offers, never a downgrade.
func (f *Civo) newVersion(q *request, c *civogo.KubernetesCluster, cfg civogo.KubernetesClusterConfig) (string, *apiError) {
	if !q.has("kubernetes_version") || cfg.KubernetesVersion == c.Version {
		return c.Version, nil
	}
	if _, ok := f.version(cfg.KubernetesVersion, c.ClusterType); !ok {
		return "", badRequest("database_kubernetes_cluster_invalid_version", "%s is not a %s version Civo offers", cfg.KubernetesVersion, c.ClusterType)
	}
	if compareVersions(cfg.KubernetesVersion, c.Version) < 0 {
		return "", badRequest("database_kubernetes_cluster_invalid_version",
			"a cluster can only be upgraded: %s is below its version %s", cfg.KubernetesVersion, c.Version)
	}
	return cfg.KubernetesVersion, nil
}

// newName is the name a cluster PUT leaves the cluster with: a valid name no other cluster of
// its region has.
func (f *Civo) newName(q *request, fc *fakeCluster, cfg civogo.KubernetesClusterConfig) (string, *apiError) {
	if !q.has("name") || cfg.Name == fc.c.Name {
		return fc.c.Name, nil
	}
	if !clusterNameRE.MatchString(cfg.Name) {
		return "", badRequest("kubernetes_cluster_invalid_name", "%q is not a valid cluster name", cfg.Name)
	}
	for _, other := range f.clusters {
		if other != fc && other.c.Name == cfg.Name && inRegion(other.region, fc.region) {
			return "", &apiError{http.StatusConflict, "database_duplicate_cluster_name_not_allowed", "a cluster named " + cfg.Name + " already exists in " + q.region}
		}
	}
	return cfg.Name, nil
}

// planPools checks what a cluster PUT asks of the pools and returns how to do it. "pools" is the
// whole list; without it, num_target_nodes and target_nodes_size speak for the first pool.
func (f *Civo) planPools(q *request, fc *fakeCluster, cfg civogo.KubernetesClusterConfig) (func(), *apiError) {
	cid := fc.c.ID
	current := f.poolsOf(cid)
	if !q.has("pools") || string(q.fields["pools"]) == "null" {
		return f.planFirstPool(q, current, cfg)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(q.fields["pools"], &raws); err != nil {
		return nil, badRequest("bad_request", "pools: %v", err)
	}
	if len(raws) == 0 {
		return nil, badRequest("database_kubernetes_cluster_no_pools", "a cluster needs at least one pool")
	}
	type step struct {
		cfg    civogo.KubernetesClusterPoolConfig
		fields map[string]json.RawMessage
		pool   *fakePool // nil for a new pool
	}
	var steps []step
	listed := map[string]bool{}
	for _, raw := range raws {
		var s step
		if err := json.Unmarshal(raw, &s.cfg); err != nil {
			return nil, badRequest("bad_request", "pools: %v", err)
		}
		_ = json.Unmarshal(raw, &s.fields)
		if s.cfg.ID != "" {
			if listed[s.cfg.ID] {
				return nil, badRequest("database_kubernetes_cluster_invalid", "pool id %q is given twice", s.cfg.ID)
			}
			listed[s.cfg.ID] = true
			s.pool = f.pools[cid+"/"+s.cfg.ID]
		}
		_, hasSize := s.fields["size"]
		_, hasCount := s.fields["count"]
		switch {
		case s.pool == nil:
			if e := f.checkNewPool(s.cfg); e != nil {
				return nil, e
			}
		case hasSize && s.cfg.Size != s.pool.pool.Size:
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s's size cannot change from %s to %s", s.cfg.ID, s.pool.pool.Size, s.cfg.Size)
		case hasCount && s.cfg.Count < 1:
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s needs at least one node", s.cfg.ID)
		}
		steps = append(steps, s)
	}
	return func() {
		for _, p := range current {
			if !listed[p.pool.ID] {
				delete(f.pools, cid+"/"+p.pool.ID)
			}
		}
		for _, s := range steps {
			if s.pool == nil {
				f.addPool(cid, s.cfg, f.BuildPolls)
				continue
			}
			if _, ok := s.fields["count"]; ok && s.cfg.Count != s.pool.pool.Count {
				s.pool.setNodes(s.cfg.Count, f.BuildPolls)
			}
			if _, ok := s.fields["labels"]; ok {
				s.pool.pool.Labels = userLabels(s.cfg.Labels)
			}
			if raw, ok := s.fields["taints"]; ok && string(raw) != "null" {
				s.pool.pool.Taints = slices.Clone(s.cfg.Taints)
			}
		}
	}, nil
}

// planFirstPool is planPools for a PUT without "pools": num_target_nodes and target_nodes_size
// speak for the first pool.
func (f *Civo) planFirstPool(q *request, current []*fakePool, cfg civogo.KubernetesClusterConfig) (func(), *apiError) {
	if len(current) == 0 {
		return func() {}, nil
	}
	first := current[0]
	if q.has("target_nodes_size") && cfg.TargetNodesSize != first.pool.Size {
		return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s's size cannot change from %s to %s", first.pool.ID, first.pool.Size, cfg.TargetNodesSize)
	}
	if q.has("num_target_nodes") && cfg.NumTargetNodes != first.pool.Count {
		if cfg.NumTargetNodes < 1 {
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s needs at least one node", first.pool.ID)
		}
		return func() { first.setNodes(cfg.NumTargetNodes, f.BuildPolls) }, nil
	}
	return func() {}, nil
}

func (f *Civo) deleteCluster(q *request, fc *fakeCluster) {
	for _, p := range f.poolsOf(fc.c.ID) {
		delete(f.pools, fc.c.ID+"/"+p.pool.ID)
	}
	if f.DeletePolls > 0 {
		fc.deleted, fc.deleting, fc.overridden = true, f.DeletePolls, false
	} else {
		delete(f.clusters, fc.c.ID)
	}
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: fc.c.ID, Result: civogo.ResultSuccess})
}

// servePools answers /v2/kubernetes/clusters/{cid}/pools[/{pid}].
func (f *Civo) servePools(q *request, cid string, seg []string) {
	if _, ok := f.clusterIn(cid, q.region, false); !ok && !f.AnyCluster {
		f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+cid+" in "+q.region)
		return
	}
	if len(seg) == 0 {
		switch q.r.Method {
		case http.MethodGet:
			out := []civogo.KubernetesPool{}
			for _, p := range f.poolsOf(cid) {
				if p.pending > 0 {
					p.pending--
				}
				out = append(out, f.renderPool(cid, p))
			}
			writeJSON(q.w, http.StatusOK, out)
		case http.MethodPost:
			f.createPool(q, cid)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
		return
	}
	if len(seg) == 3 && seg[1] == "instances" && q.r.Method == http.MethodDelete {
		f.deleteInstance(q, cid, seg[0], seg[2])
		return
	}
	if len(seg) != 1 {
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
		return
	}
	key := cid + "/" + seg[0]
	p, ok := f.pools[key]
	if !ok {
		f.fail(q.w, http.StatusNotFound, "database_cluster_pool_not_found", "cluster "+cid+" has no pool "+seg[0])
		return
	}
	switch q.r.Method {
	case http.MethodGet:
		if p.pending > 0 {
			p.pending--
		}
		writeJSON(q.w, http.StatusOK, f.renderPool(cid, p))
	case http.MethodPut:
		f.updatePool(q, cid, p)
	case http.MethodDelete:
		delete(f.pools, key)
		writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{Result: civogo.ResultSuccess})
	default:
		f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
	}
}

func (f *Civo) createPool(q *request, cid string) {
	var cfg civogo.KubernetesClusterPoolConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if cfg.Size == "" {
		f.refuse(q, badRequest("parameter_size_missing", "pool %q has no size", cfg.ID))
		return
	}
	if !f.poolSize(cfg.Size) {
		f.refuse(q, badRequest("database_size_not_found", "%s is not a Kubernetes node size Civo offers", cfg.Size))
		return
	}
	if _, ok := f.pools[cid+"/"+cfg.ID]; ok && cfg.ID != "" {
		f.fail(q.w, http.StatusConflict, "database_cluster_pool_duplicate", "cluster "+cid+" already has a pool "+cfg.ID)
		return
	}
	p := f.addPool(cid, cfg, f.BuildPolls)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: p.pool.ID, Result: civogo.ResultSuccess})
}

// updatePool changes only the keys present: a missing "labels" leaves the labels alone,
// "labels": {} clears them; "taints": null is refused, as a list is expected.
func (f *Civo) updatePool(q *request, cid string, p *fakePool) {
	count, hasCount := -1, q.has("count")
	if hasCount {
		if err := json.Unmarshal(q.fields["count"], &count); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	var labels map[string]string
	if q.has("labels") {
		if err := json.Unmarshal(q.fields["labels"], &labels); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	var taints []corev1.Taint
	if raw, ok := q.fields["taints"]; ok {
		if string(raw) == "null" {
			f.fail(q.w, http.StatusUnprocessableEntity, "invalid_taints", "taints must be a list")
			return
		}
		if err := json.Unmarshal(raw, &taints); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	if hasCount {
		p.setNodes(count, f.BuildPolls)
	}
	if q.has("labels") {
		p.pool.Labels = userLabels(labels)
	}
	if q.has("taints") {
		p.pool.Taints = taints
	}
	writeJSON(q.w, http.StatusOK, f.renderPool(cid, p))
}

// addKnownCluster makes a cluster known by id only, for New.
func (f *Civo) addKnownCluster(id string) {
	f.seedCluster(civogo.KubernetesCluster{ID: id, Name: id}, false)
	if f.region == "" {
		f.clusters[id].region = ""
	}
}

// seedCluster stores an ACTIVE cluster as SeedCluster describes; full is false for the bare
// clusters New knows, which get no pool and no firewall.
func (f *Civo) seedCluster(c civogo.KubernetesCluster, full bool) string {
	if c.ID == "" {
		c.ID = f.newID("cluster")
	}
	region := f.region
	if region == "" {
		region = f.firstRegion()
	}
	if code, ok := f.regionCode(region); ok {
		region = code
	}
	if n, ok := f.networks[c.NetworkID]; ok {
		region = n.region
	} else {
		c.NetworkID = f.defaultNetwork(region).n.ID
	}
	c.Name = cmp.Or(c.Name, "cluster-"+short(c.ID, 8))
	c.ClusterType = cmp.Or(c.ClusterType, "k3s")
	c.Version = cmp.Or(c.Version, c.KubernetesVersion, f.defaultVersion(c.ClusterType))
	c.CNIPlugin = cmp.Or(c.CNIPlugin, "flannel")
	c.CCMInstalled = cmp.Or(c.CCMInstalled, "true")
	if c.CreatedAt.IsZero() {
		c.CreatedAt = time.Now().UTC().Truncate(time.Second)
	}
	if c.BuiltAt.IsZero() {
		c.BuiltAt = c.CreatedAt
	}
	if c.Conditions == nil {
		c.Conditions = []civogo.Condition{}
	}
	if full {
		if _, ok := f.firewalls[c.FirewallID]; !ok {
			rules, _ := clusterRules("")
			id := c.FirewallID
			if id == "" {
				id = f.newID("firewall")
			}
			f.addFirewall(id, "k3s-cluster-"+c.Name+"-"+short(c.ID, 6), region, c.NetworkID, rules)
			c.FirewallID = id
		}
		if c.InstalledApplications == nil {
			c.InstalledApplications, _ = f.installApps(nil, "", true)
		}
		pools := c.Pools
		if len(pools) == 0 && len(f.poolsOf(c.ID)) == 0 {
			pools = []civogo.KubernetesPool{{Count: cmp.Or(c.NumTargetNode, defaultPoolCount), Size: cmp.Or(c.TargetNodeSize, defaultPoolSize)}}
		}
		for _, p := range pools {
			f.addPool(c.ID, civogo.KubernetesClusterPoolConfig{ID: p.ID, Count: p.Count, Size: p.Size, Labels: p.Labels,
				Taints: p.Taints, PublicIPNodePool: p.PublicIPNodePool}, 0)
		}
	}
	f.fillAddresses(&c)
	// What a read derives is not stored.
	c.Pools, c.RequiredPools, c.Instances, c.Status, c.Ready = nil, nil, nil, "", false
	c.NumTargetNode, c.TargetNodeSize, c.UpgradeAvailableTo, c.KubernetesVersion = 0, "", "", ""
	f.clusters[c.ID] = &fakeCluster{c: c, region: region, seq: f.next()}
	return c.ID
}

// firstRegion is the account's default region: the offered one marked default, else the first.
func (f *Civo) firstRegion() string {
	for _, r := range f.regions {
		if r.Default {
			return r.Code
		}
	}
	if len(f.regions) > 0 {
		return f.regions[0].Code
	}
	return "lon1"
}

// applyEdit keeps what EditCluster's edit changed.
func (f *Civo) applyEdit(fc *fakeCluster, before, after civogo.KubernetesCluster) {
	c := &fc.c
	switch {
	case after.KubernetesVersion != before.KubernetesVersion:
		c.Version = after.KubernetesVersion
	case after.Version != before.Version:
		c.Version = after.Version
	}
	c.Name, c.Tags, c.NetworkID, c.FirewallID = after.Name, after.Tags, after.NetworkID, after.FirewallID
	c.CNIPlugin, c.ClusterType, c.MasterIP, c.APIEndPoint = after.CNIPlugin, after.ClusterType, after.MasterIP, after.APIEndPoint
	c.DNSEntry, c.KubeConfig, c.InstalledApplications = after.DNSEntry, after.KubeConfig, after.InstalledApplications
	c.CreatedAt, c.BuiltAt, c.Conditions = after.CreatedAt, after.BuiltAt, after.Conditions
	fc.overridden = after.Status != before.Status || after.Ready != before.Ready
	fc.status, fc.ready = after.Status, after.Ready
	if reflect.DeepEqual(after.Pools, before.Pools) {
		return
	}
	cid := c.ID
	listed := map[string]bool{}
	for _, ap := range after.Pools {
		listed[ap.ID] = true
		p, ok := f.pools[cid+"/"+ap.ID]
		if !ok {
			f.addPool(cid, civogo.KubernetesClusterPoolConfig{ID: ap.ID, Count: ap.Count, Size: ap.Size, Labels: ap.Labels,
				Taints: ap.Taints, PublicIPNodePool: ap.PublicIPNodePool}, 0)
			continue
		}
		p.pool.Size, p.pool.Labels, p.pool.Taints = ap.Size, userLabels(ap.Labels), slices.Clone(ap.Taints)
		p.pool.Annotations, p.pool.PublicIPNodePool = maps.Clone(ap.Annotations), ap.PublicIPNodePool
		if ap.Count != p.pool.Count || p.pending > 0 {
			p.setNodes(ap.Count, 0)
		}
	}
	for _, p := range f.poolsOf(cid) {
		if !listed[p.pool.ID] {
			delete(f.pools, cid+"/"+p.pool.ID)
		}
	}
}

// short is id cut to n characters, for names made from ids.
func short(id string, n int) string {
	if len(id) > n {
		return id[:n]
	}
	return id
}
