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
)

// fakeCluster is a cluster as the fake stores it. Its pools live in store.pools; what a read
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
	// upgradeFrom is the version the upgrade under way started from ("" when none): the cluster
	// goes back to it when the upgrade fails (FailUpgrades).
	upgradeFrom string
	// failed says the last upgrade failed: the cluster reports failedStatus until it is fixed.
	failed bool
	// deleted clusters answer DELETING to deleting more GETs, then 404.
	deleted  bool
	deleting int
	// overridden, set by EditCluster, makes status and ready what the test said.
	overridden bool
	status     string
	ready      bool
}

// clusterAPI serves Kubernetes clusters, /v2/kubernetes/clusters: their creation, reads (which
// count as polls of a build, an upgrade or a delete), updates (clusterupdate.go) and deletion.
type clusterAPI struct{ *store }

// Clusters are the clusters as Civo would list them, oldest first, in every region.
func (f *Civo) Clusters() []civogo.KubernetesCluster {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	var out []civogo.KubernetesCluster
	for _, fc := range f.s.clusterAPI.all("") {
		out = append(out, deepCopy(f.s.clusterAPI.render(fc)))
	}
	return out
}

// Cluster is the cluster with id as Civo would report it (reading it here is no poll: nothing
// moves on), and whether it exists.
func (f *Civo) Cluster(id string) (civogo.KubernetesCluster, bool) {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	fc, ok := f.s.clusters[id]
	if !ok {
		return civogo.KubernetesCluster{}, false
	}
	return deepCopy(f.s.clusterAPI.render(fc)), true
}

// ClusterNamed is the cluster called name, in any region, and whether there is one.
func (f *Civo) ClusterNamed(name string) (civogo.KubernetesCluster, bool) {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	for _, fc := range f.s.clusterAPI.all("") {
		if fc.c.Name == name {
			return deepCopy(f.s.clusterAPI.render(fc)), true
		}
	}
	return civogo.KubernetesCluster{}, false
}

// SeedCluster puts an ACTIVE cluster into the fake, as if it had been created earlier, filling
// in what a create would have: an id (a given one is kept), a name, the default version, flannel,
// a network (the default one of the fake's region, lon1 when it has none; a given known network
// places the cluster in that network's region, an unknown one is replaced by the default), a firewall (a given id unknown to the fake
// becomes a firewall with that id), one pool of three g4s.kube.medium nodes when none is given,
// addresses, a kubeconfig and the default applications. Pools may then join it. It returns the id.
func (f *Civo) SeedCluster(c civogo.KubernetesCluster) string {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	return f.s.clusterAPI.seed(deepCopy(c), true)
}

// EditCluster changes a cluster behind its clients' backs, as the console or Civo itself would.
// edit gets the cluster as a read would report it. Changes to the name, versions, tags, network,
// firewall, cni_plugin, cluster_type, addresses, kubeconfig and installed applications are kept;
// a changed status or ready flag sticks until the next EditCluster; a changed pool list replaces
// the pools, their nodes ready. It reports whether the cluster exists.
func (f *Civo) EditCluster(id string, edit func(*civogo.KubernetesCluster)) bool {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	fc, ok := f.s.clusters[id]
	if !ok {
		return false
	}
	before := deepCopy(f.s.clusterAPI.render(fc))
	after := deepCopy(before)
	edit(&after)
	f.s.clusterAPI.applyEdit(fc, before, after)
	return true
}

// apiError is a refusal: its status, Civo's code and the fake's reason.
type apiError struct {
	status       int
	code, reason string
}

func badRequest(code, format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, code, fmt.Sprintf(format, args...)}
}

// clusterNameRE is what the fake accepts as a cluster name: 1 to 63 letters, digits, '-', '.' or
// '_', starting with a letter or digit.
var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// render is the cluster as Civo reports it. It changes nothing; the caller copies it if
// it leaves the lock.
func (f clusterAPI) render(fc *fakeCluster) civogo.KubernetesCluster {
	out := fc.c
	out.KubernetesVersion = out.Version
	out.UpgradeAvailableTo = f.catalogue.upgradeTo(out.Version, out.ClusterType)
	scaling := false
	for i, p := range f.poolAPI.of(fc.c.ID) {
		rp := f.poolAPI.render(fc.c.ID, p)
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
	case fc.failed:
		out.Status = failedStatus
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

// in is the cluster with id found by a request about region; a deleted one only when
// deleted is true.
func (f clusterAPI) in(id, region string, deleted bool) (*fakeCluster, bool) {
	fc, ok := f.clusters[id]
	if !ok || !inRegion(fc.region, region) || fc.deleted && !deleted {
		return nil, false
	}
	return fc, true
}

// all are the clusters in region ("" for all), oldest first.
func (f clusterAPI) all(region string) []*fakeCluster {
	var out []*fakeCluster
	for _, fc := range f.clusters {
		if inRegion(fc.region, region) {
			out = append(out, fc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (f clusterAPI) serve(q *request, seg []string) {
	switch {
	case len(seg) == 0 && q.r.Method == http.MethodGet:
		f.list(q)
	case len(seg) == 0 && q.r.Method == http.MethodPost:
		f.create(q)
	case len(seg) == 1:
		fc, ok := f.in(seg[0], q.region, q.r.Method == http.MethodGet)
		if !ok {
			f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+seg[0]+" in "+q.region)
			return
		}
		switch q.r.Method {
		case http.MethodGet:
			out, ok := f.poll(fc)
			if !ok {
				f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+seg[0]+" in "+q.region)
				return
			}
			writeJSON(q.w, http.StatusOK, out)
		case http.MethodPut:
			f.update(q, fc)
		case http.MethodDelete:
			f.delete(q, fc)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
	case len(seg) >= 2 && seg[1] == "pools":
		f.poolAPI.serve(q, seg[0], seg[2:])
	default:
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
	}
}

// list answers one page, as civogo's ListKubernetesClusters reads it (it asks for no
// page, so it sees the first per_page clusters only, as it would on Civo).
func (f clusterAPI) list(q *request) {
	page, perPage := 1, 20
	if n, err := strconv.Atoi(q.r.URL.Query().Get("page")); err == nil && n > 0 {
		page = n
	}
	if n, err := strconv.Atoi(q.r.URL.Query().Get("per_page")); err == nil && n > 0 {
		perPage = min(n, 100)
	}
	all := f.all(q.region)
	out := civogo.PaginatedKubernetesClusters{Page: page, PerPage: perPage, Pages: max(1, (len(all)+perPage-1)/perPage),
		Items: []civogo.KubernetesCluster{}}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		out.Items = append(out.Items, f.render(all[i]))
	}
	writeJSON(q.w, http.StatusOK, out)
}

// poll is a GET of the cluster: the read, and the progress it counts as. It reports false
// once a deleted cluster is gone.
func (f clusterAPI) poll(fc *fakeCluster) (civogo.KubernetesCluster, bool) {
	if fc.deleted {
		if fc.deleting <= 0 {
			delete(f.clusters, fc.c.ID)
			return civogo.KubernetesCluster{}, false
		}
		fc.deleting--
		return f.render(fc), true
	}
	if fc.building && !f.held && fc.pending <= 0 {
		fc.building = false
		fc.c.BuiltAt = time.Now().UTC().Truncate(time.Second)
	}
	// A read of the cluster is a poll of its pools too, as a read of a pool is.
	for _, p := range f.poolAPI.of(fc.c.ID) {
		if p.pending > 0 {
			p.pending--
		}
	}
	out := f.render(fc)
	if fc.building && !f.held {
		fc.pending--
	}
	if fc.upgrading > 0 {
		fc.upgrading--
	}
	if fc.upgrading == 0 && fc.upgradeFrom != "" {
		f.endUpgrade(fc)
	}
	return out, true
}

func (f clusterAPI) create(q *request) {
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
	writeJSON(q.w, http.StatusOK, f.render(fc))
}

// newCluster checks a create and, when nothing is wrong, makes the cluster, its pools and (when
// none is named) its firewall.
func (f clusterAPI) newCluster(region string, cfg civogo.KubernetesClusterConfig) (*fakeCluster, *apiError) {
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
	version := cmp.Or(cfg.KubernetesVersion, f.catalogue.defaultVersion(clusterType))
	v, ok := f.catalogue.version(version, clusterType)
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
	network, firewallID, rules, e := f.network(region, cfg)
	if e != nil {
		return nil, e
	}
	pools, e := f.checkNewPools(cfg)
	if e != nil {
		return nil, e
	}
	apps, e := f.catalogue.installApps(nil, cfg.Applications, true)
	if e != nil {
		return nil, e
	}

	id := f.newID("cluster")
	if firewallID == "" {
		firewallID = f.networking.addFirewall(f.newID("firewall"), "k3s-cluster-"+name+"-"+id[:6], region, network.n.ID, rules).fw.ID
	}
	fc := &fakeCluster{region: region, seq: f.next(), building: f.opts.BuildPolls > 0 || f.held, pending: f.opts.BuildPolls}
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
		f.poolAPI.add(id, p, 0)
	}
	return fc, nil
}

// network checks a create's network and firewall: the network the cluster joins (the
// region's default when none is named), the firewall named (in that network), or else the rules
// of the firewall to make for it.
func (f clusterAPI) network(region string, cfg civogo.KubernetesClusterConfig) (*fakeNetwork, string, []civogo.FirewallRule, *apiError) {
	network := f.networking.defaultNetwork(region)
	if cfg.NetworkID != "" {
		n, ok := f.networking.networkIn(cfg.NetworkID, region)
		if !ok {
			return nil, "", nil, badRequest("database_network_not_found", "no network %s in %s", cfg.NetworkID, region)
		}
		network = n
	}
	// The provider names the firewall in instance_firewall; firewall_id says the same.
	firewallID := cmp.Or(cfg.FirewallID, cfg.InstanceFirewall)
	if firewallID != "" {
		fw, ok := f.networking.firewallIn(firewallID, region)
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
func (f clusterAPI) checkNewPools(cfg civogo.KubernetesClusterConfig) ([]civogo.KubernetesClusterPoolConfig, *apiError) {
	pools := cfg.Pools
	if len(pools) == 0 {
		pools = []civogo.KubernetesClusterPoolConfig{{Count: cmp.Or(cfg.NumTargetNodes, defaultPoolCount), Size: cmp.Or(cfg.TargetNodesSize, defaultPoolSize)}}
	}
	seen := map[string]bool{}
	for _, p := range pools {
		if e := f.poolAPI.checkNew(p); e != nil {
			return nil, e
		}
		if p.ID != "" && seen[p.ID] {
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool id %q is given twice", p.ID)
		}
		seen[p.ID] = true
	}
	return pools, nil
}

// fillAddresses gives a cluster what Civo gives a new one: a master address (from TEST-NET-3),
// its API endpoint, a DNS name and a kubeconfig, where it has none.
func (f clusterAPI) fillAddresses(c *civogo.KubernetesCluster) {
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

// addKnown makes a cluster known by id only, for New.
func (f clusterAPI) addKnown(id string) {
	f.seed(civogo.KubernetesCluster{ID: id, Name: id}, false)
	if f.region == "" {
		f.clusters[id].region = ""
	}
}

// seed stores an ACTIVE cluster as SeedCluster describes; full is false for the bare
// clusters New knows, which get no pool and no firewall.
func (f clusterAPI) seed(c civogo.KubernetesCluster, full bool) string {
	if c.ID == "" {
		c.ID = f.newID("cluster")
	}
	region := f.region
	if region == "" {
		region = f.catalogue.firstRegion()
	}
	if code, ok := f.catalogue.regionCode(region); ok {
		region = code
	}
	if n, ok := f.networks[c.NetworkID]; ok {
		region = n.region
	} else {
		c.NetworkID = f.networking.defaultNetwork(region).n.ID
	}
	c.Name = cmp.Or(c.Name, "cluster-"+short(c.ID, 8))
	c.ClusterType = cmp.Or(c.ClusterType, "k3s")
	c.Version = cmp.Or(c.Version, c.KubernetesVersion, f.catalogue.defaultVersion(c.ClusterType))
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
			f.networking.addFirewall(id, "k3s-cluster-"+c.Name+"-"+short(c.ID, 6), region, c.NetworkID, rules)
			c.FirewallID = id
		}
		if c.InstalledApplications == nil {
			c.InstalledApplications, _ = f.catalogue.installApps(nil, "", true)
		}
		pools := c.Pools
		if len(pools) == 0 && len(f.poolAPI.of(c.ID)) == 0 {
			pools = []civogo.KubernetesPool{{Count: cmp.Or(c.NumTargetNode, defaultPoolCount), Size: cmp.Or(c.TargetNodeSize, defaultPoolSize)}}
		}
		for _, p := range pools {
			f.poolAPI.add(c.ID, civogo.KubernetesClusterPoolConfig{ID: p.ID, Count: p.Count, Size: p.Size, Labels: p.Labels,
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

// applyEdit keeps what EditCluster's edit changed.
func (f clusterAPI) applyEdit(fc *fakeCluster, before, after civogo.KubernetesCluster) {
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
			f.poolAPI.add(cid, civogo.KubernetesClusterPoolConfig{ID: ap.ID, Count: ap.Count, Size: ap.Size, Labels: ap.Labels,
				Taints: ap.Taints, PublicIPNodePool: ap.PublicIPNodePool}, 0)
			continue
		}
		p.pool.Size, p.pool.Labels, p.pool.Taints = ap.Size, userLabels(ap.Labels), slices.Clone(ap.Taints)
		p.pool.Annotations, p.pool.PublicIPNodePool = maps.Clone(ap.Annotations), ap.PublicIPNodePool
		if ap.Count != p.pool.Count || p.pending > 0 {
			p.setNodes(ap.Count, 0)
		}
	}
	for _, p := range f.poolAPI.of(cid) {
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
