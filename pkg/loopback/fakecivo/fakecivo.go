// Package fakecivo is a loopback Civo API for tests: regions, instance sizes, Kubernetes versions
// and marketplace applications, networks, firewalls and their rules, Kubernetes clusters and
// their node pools. What it accepts and answers is what civogo v0.3.89 sends and decodes as
// terraform-provider-civo v1.1.4 (the provider inside pulumi-civo 2.4.8) and this repository's
// pkg/cloud/civo/pools use it, so that provider's plugin can configure itself (GET /v2/regions), create,
// read, update, import and delete firewalls, clusters and node pools against it, and wait for
// them as it waits for Civo: a new cluster is BUILDING, then ACTIVE; a deleted one answers 404
// with database_kubernetes_cluster_not_found; a deleted pool answers
// database_cluster_pool_not_found.
//
// Requests are checked as Civo checks them: "Authorization: bearer <token>" (a wrong one is
// database_account_not_found, which the provider reports as an invalid token), the region as
// ?region= on GET and DELETE and as "region" in POST and PUT bodies (region_unavailable when
// missing or not offered), and error bodies are Civo's {"code", "result": "failed", "reason"}
// with codes from civogo's errors.go where one fits.
//
// Where Civo's behaviour cannot be read from its clients, the fake chose:
//
//   - Regions match case-insensitively (lon1 and LON1 are one region); the list's codes are lower
//     case, as this repository writes them. The region-wide lists (regions, sizes, versions,
//     applications) need no ?region=.
//   - Everything else lives in one region: a cluster, network or firewall asked for in another
//     region is not found. A cluster named to New when the fake is not pinned to a region is
//     found in every region, as the pool routes always allowed.
//   - Every region has a default network (default: true). A firewall or cluster given no network
//     is placed in it.
//   - A firewall created with create_rules absent or true gets default rules (TCP, UDP and ICMP
//     open both ways) before the rules given; with create_rules false only the rules given. A
//     cluster created without a firewall gets its own, opening what firewall_rule names: ""
//     or "default" is 80, 443 and 6443, "all" every TCP port, otherwise a comma-separated list.
//   - A PUT changes only the keys present in its body. civogo's KubernetesClusterConfig fields are
//     all omitempty, so a field it leaves out (empty tags, say) keeps the stored value, and a
//     later read shows that the change never reached the cloud.
//   - A PUT that would change a cluster's network, cluster_type, cni_plugin or a pool's size is
//     refused (400 database_kubernetes_cluster_invalid), as these are fixed at creation; the
//     region in a body only says which region is asked, it never moves anything.
//   - kubernetes_version only goes up: a lower one is refused with
//     database_kubernetes_cluster_invalid_version, as is one not offered, one of the other
//     cluster type, or a deprecated one for a new cluster. An upgrade reports UPGRADING for
//     BuildPolls reads.
//   - "pools" in a cluster PUT is the whole pool list: pools left out are deleted, new ones
//     created, listed ones scaled; a key absent from a listed pool (labels, taints, or taints
//     null, which civogo sends for none) keeps that pool's value.
//   - Unknown things named in a body are 400 (database_size_not_found, database_network_not_found,
//     database_firewall_not_found, database_kubernetes_application_not_found); unknown things
//     named in the path are 404. Conflicts are 409: a duplicate pool id
//     (database_cluster_pool_duplicate, the fake's own code), a duplicate cluster name
//     (database_duplicate_cluster_name_not_allowed), a firewall in use by a cluster
//     (database_firewall_inuse_by_cluster), both as Civo has answered them.
//   - A fault injected through fakecloud carries the civogo code for 401, 403 and 404 (404 by the
//     path: cluster, pool, firewall, network) and otherwise a code named after its status
//     (too_many_requests, internal_server_error, ...), as Civo's are unknown.
//   - A cluster is gone at once after DELETE unless DeletePolls asks for DELETING reads first;
//     its pools go with it, its firewall stays (Civo keeps firewalls since clusters share them).
//   - Master addresses are in 203.0.113.0/24 (TEST-NET-3), so nothing real is ever dialled;
//     kubeconfigs carry made-up credentials; ids are UUIDs derived from a counter, so runs repeat.
//   - A firewall counts as in use while any cluster record names it, a DELETING one included.
package fakecivo

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// Civo is a loopback Civo API. Its state is guarded by the server's Mu: the handlers run with it
// held and every method below takes it.
type Civo struct {
	token  string
	region string
	// tokens are more tokens the API accepts (AcceptToken).
	tokens []string
	srv    *fakecloud.Server

	// cur is the request being answered; Authorized sets it, under Mu, so that Error (which
	// fakecloud calls without the request) can echo its Authorization header and name what its
	// path was about.
	cur *http.Request

	regions      []civogo.Region
	versions     []civogo.KubernetesVersion
	sizes        []civogo.InstanceSize
	applications []civogo.KubernetesMarketplaceApplication
	held         bool
	seq          int
	// loopback makes new clusters' addresses loopback ones (LoopbackEndpoints).
	loopback bool

	clusters  map[string]*fakeCluster
	pools     map[string]*fakePool // by cluster id + "/" + pool id
	networks  map[string]*fakeNetwork
	firewalls map[string]*fakeFirewall
	// kube ties clusters to real control planes (SetKubeconfig, SetNodes).
	kube kube

	// BuildPolls is how many GETs a node stays BUILDING after a pool is created or scaled, how
	// many GETs a new cluster answers BUILDING and an upgraded one UPGRADING.
	BuildPolls int
	// DeletePolls is how many GETs a deleted cluster answers DELETING before it answers 404.
	DeletePolls int
	// NeverReady keeps every node BUILDING.
	NeverReady bool
	// AnyCluster accepts pools in any cluster: the real-engine tests' clusters are the stand-in
	// provider's, whose ids the API does not know.
	AnyCluster bool
	// EchoAuth makes error answers echo the request's Authorization header, as a
	// careless proxy might, to prove the token is scrubbed from errors.
	EchoAuth bool
}

// Request is one request received, and the status it was answered with.
type Request = fakecloud.Request

// New starts the API, with clusters existing, answering only token, in region (any region when
// empty); it stops when the test ends. The clusters named are known by id only: they are ACTIVE,
// have no pools until some are created or seeded, and, when region is empty, are found in every
// region.
func New(t fakecloud.TB, token, region string, clusters ...string) *Civo {
	t.Helper()
	return NewFor(t, token, region, 0, fakecloud.Lifetime, clusters...)
}

// newCivo is a cloud with the default catalogue, each region's default network and the clusters
// named.
func newCivo(token, region string, clusters ...string) *Civo {
	f := &Civo{
		token:        token,
		region:       region,
		regions:      slices.Clone(DefaultRegions),
		versions:     slices.Clone(DefaultVersions),
		sizes:        slices.Clone(DefaultSizes),
		applications: deepCopy(DefaultApplications),
		clusters:     map[string]*fakeCluster{},
		pools:        map[string]*fakePool{},
		networks:     map[string]*fakeNetwork{},
		firewalls:    map[string]*fakeFirewall{},
	}
	for _, r := range f.regions {
		f.defaultNetwork(r.Code)
	}
	for _, id := range clusters {
		f.addKnownCluster(id)
	}
	return f
}

// URL is the API's base URL, for civogo or CIVO_API_URL.
func (f *Civo) URL() string { return f.srv.URL() }

// Close stops the API: later requests find nothing listening.
func (f *Civo) Close() { f.srv.Close() }

// Inject adds a fault: the next matching requests get its answer instead of the API's.
func (f *Civo) Inject(fault fakecloud.Fault) { f.srv.Inject(fault) }

// AcceptToken makes the API accept token too, as a second key of the same account.
func (f *Civo) AcceptToken(token string) { f.locked(func() { f.tokens = append(f.tokens, token) }) }

// Fail answers the next times requests with method (any when "") with status.
func (f *Civo) Fail(method string, status, times int) {
	if times < 1 {
		return
	}
	f.srv.Inject(fakecloud.Fault{Method: method, Status: status, Times: times})
}

// Requests are the requests received with method ("" for all), in order.
func (f *Civo) Requests(method string) []Request { return f.srv.Requests(method) }

// Reset forgets the requests received.
func (f *Civo) Reset() { f.srv.Reset() }

// LastBody is the JSON body of the last request received with method, decoded; the test fails
// when there is none.
func (f *Civo) LastBody(t testing.TB, method string) map[string]any {
	t.Helper()
	reqs := f.Requests(method)
	if len(reqs) == 0 {
		t.Fatalf("the Civo API received no %s", method)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// SetRegions replaces the regions offered. Each gets a default network.
func (f *Civo) SetRegions(regions ...civogo.Region) {
	f.locked(func() {
		f.regions = slices.Clone(regions)
		for _, r := range f.regions {
			f.defaultNetwork(r.Code)
		}
	})
}

// SetVersions replaces the Kubernetes versions offered.
func (f *Civo) SetVersions(versions ...civogo.KubernetesVersion) {
	f.locked(func() { f.versions = slices.Clone(versions) })
}

// SetSizes replaces the instance sizes offered.
func (f *Civo) SetSizes(sizes ...civogo.InstanceSize) {
	f.locked(func() { f.sizes = slices.Clone(sizes) })
}

// LoopbackEndpoints makes the clusters created from now on answer a loopback master address and
// API endpoint (nothing serves it) instead of one from TEST-NET-3. The sandbox promises that
// nothing leaves the machine, and a client dialling a TEST-NET address sends packets out.
func (f *Civo) LoopbackEndpoints() { f.locked(func() { f.loopback = true }) }

// Hold, while on, keeps every cluster that is still building BUILDING however often it is read,
// so a test can stop a deploy in the middle of a create; turned off, the builds carry on.
func (f *Civo) Hold(on bool) { f.locked(func() { f.held = on }) }

// Pool is the pool as Civo would report it, and whether it exists.
func (f *Civo) Pool(cid, id string) (civogo.KubernetesPool, bool) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	p, ok := f.pools[cid+"/"+id]
	if !ok {
		return civogo.KubernetesPool{}, false
	}
	return f.renderPool(cid, p), true
}

// Pools counts the pools of every cluster.
func (f *Civo) Pools() int {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	return len(f.pools)
}

// Scale sets a pool's node count behind its manager's back, as the console or the autoscaler
// would, its nodes ready.
func (f *Civo) Scale(cid, id string, n int) {
	f.locked(func() {
		if p, ok := f.pools[cid+"/"+id]; ok {
			p.setNodes(n, 0)
		}
	})
}

// Seed puts a ready pool into the fake, as if it had been created earlier. The cluster need not
// be known.
func (f *Civo) Seed(cid string, p civogo.KubernetesPool) {
	f.locked(func() {
		fp := &fakePool{pool: clonePool(p), seq: f.next()}
		fp.setNodes(p.Count, 0)
		f.pools[cid+"/"+p.ID] = fp
	})
}

// Clusters are the clusters as Civo would list them, oldest first, in every region.
func (f *Civo) Clusters() []civogo.KubernetesCluster {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	var out []civogo.KubernetesCluster
	for _, fc := range f.clusterList("") {
		out = append(out, deepCopy(f.renderCluster(fc)))
	}
	return out
}

// Cluster is the cluster with id as Civo would report it (reading it here is no poll: nothing
// moves on), and whether it exists.
func (f *Civo) Cluster(id string) (civogo.KubernetesCluster, bool) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	fc, ok := f.clusters[id]
	if !ok {
		return civogo.KubernetesCluster{}, false
	}
	return deepCopy(f.renderCluster(fc)), true
}

// ClusterNamed is the cluster called name, in any region, and whether there is one.
func (f *Civo) ClusterNamed(name string) (civogo.KubernetesCluster, bool) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	for _, fc := range f.clusterList("") {
		if fc.c.Name == name {
			return deepCopy(f.renderCluster(fc)), true
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
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	return f.seedCluster(deepCopy(c), true)
}

// EditCluster changes a cluster behind its clients' backs, as the console or Civo itself would.
// edit gets the cluster as a read would report it. Changes to the name, versions, tags, network,
// firewall, cni_plugin, cluster_type, addresses, kubeconfig and installed applications are kept;
// a changed status or ready flag sticks until the next EditCluster; a changed pool list replaces
// the pools, their nodes ready. It reports whether the cluster exists.
func (f *Civo) EditCluster(id string, edit func(*civogo.KubernetesCluster)) bool {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	fc, ok := f.clusters[id]
	if !ok {
		return false
	}
	before := deepCopy(f.renderCluster(fc))
	after := deepCopy(before)
	edit(&after)
	f.applyEdit(fc, before, after)
	return true
}

// Firewalls are the firewalls, oldest first, in every region.
func (f *Civo) Firewalls() []civogo.Firewall {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	var out []civogo.Firewall
	for _, fw := range f.firewallList("") {
		out = append(out, deepCopy(f.renderFirewall(fw)))
	}
	return out
}

// Firewall is the firewall with id, and whether it exists.
func (f *Civo) Firewall(id string) (civogo.Firewall, bool) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	fw, ok := f.firewalls[id]
	if !ok {
		return civogo.Firewall{}, false
	}
	return deepCopy(f.renderFirewall(fw)), true
}

// Networks are the networks, every region's default one included, oldest first.
func (f *Civo) Networks() []civogo.Network {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	var out []civogo.Network
	for _, n := range f.networkList("") {
		out = append(out, deepCopy(n.n))
	}
	return out
}

// SeedNetwork puts a network with id and label into region, as one made earlier in Civo's
// dashboard: a manifest may name it.
func (f *Civo) SeedNetwork(id, label, region string) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.networks[id] = &fakeNetwork{region: region, seq: f.next(), n: civogo.Network{
		ID: id, Name: label, Label: label, CIDR: "10.20.0.0/22", Status: "Active", IPv4Enabled: true,
		NameserversV4: []string{"8.8.8.8", "1.1.1.1"},
	}}
}

// SeedFirewall puts a firewall with id and name, Civo's default rules on it, on the network with
// networkID in region, as one made earlier: a manifest may name it.
func (f *Civo) SeedFirewall(id, name, region, networkID string) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.addFirewall(id, name, region, networkID, defaultRules())
}

// DefaultNetworkID is the id of region's default network ("" for a region not offered).
func (f *Civo) DefaultNetworkID(region string) string {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	code, ok := f.regionCode(region)
	if !ok {
		return ""
	}
	return f.defaultNetwork(code).n.ID
}

func (f *Civo) locked(change func()) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	change()
}

// next is a new number for ordering and ids.
func (f *Civo) next() int {
	f.seq++
	return f.seq
}

// deepCopy copies v through JSON, the shape Civo's clients see it in, so no map or slice is shared.
func deepCopy[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// api is the fake as fakecloud serves it, keeping Authorized, Error and Serve out of the test API.
type api Civo

func (a *api) civo() *Civo { return (*Civo)(a) }

// Authorized tells whether r carries the token as civogo sends it, "Authorization: bearer <token>".
func (a *api) Authorized(r *http.Request) bool {
	a.cur = r
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "bearer") && (token == a.token || slices.Contains(a.tokens, token))
}

// Error writes Civo's error body for an answer fakecloud gives: a bad token or an injected fault.
func (a *api) Error(w http.ResponseWriter, status int, message string) {
	f := a.civo()
	code := statusCode(status)
	switch status {
	case http.StatusUnauthorized:
		// What Civo answers for a key it does not know; the provider turns it into "the Civo
		// token ... is invalid".
		code = "database_account_not_found"
	case http.StatusNotFound:
		code = f.notFoundCode()
	}
	f.fail(w, status, code, message)
}

// statusCode names an answer's status where the fake knows no code of Civo's for it.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusForbidden:
		return "authentication_access_denied"
	case http.StatusConflict:
		return "conflict"
	case http.StatusUnprocessableEntity:
		return "unprocessable_entity"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusInternalServerError:
		return "internal_server_error"
	case http.StatusBadGateway:
		return "bad_gateway"
	case http.StatusServiceUnavailable:
		return "service_unavailable"
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
}

// notFoundCode is the civogo code for a 404 about what the current request's path names, so an
// injected 404 reads as Civo's and the provider's not-found checks (errors.Is) see it.
func (f *Civo) notFoundCode() string {
	path := ""
	if f.cur != nil {
		path = f.cur.URL.Path
	}
	switch {
	case strings.Contains(path, "/pools"):
		return "database_cluster_pool_not_found"
	case strings.HasPrefix(path, "/v2/kubernetes/clusters"):
		return "database_kubernetes_cluster_not_found"
	case strings.HasPrefix(path, "/v2/firewalls"):
		return "database_firewall_not_found"
	case strings.HasPrefix(path, "/v2/networks"):
		return "database_network_not_found"
	}
	return "not_found"
}

// fail writes Civo's error body. With EchoAuth the reason echoes the Authorization header.
func (f *Civo) fail(w http.ResponseWriter, status int, code, reason string) {
	if f.EchoAuth && f.cur != nil {
		reason += " (request had Authorization: " + f.cur.Header.Get("Authorization") + ")"
	}
	writeJSON(w, status, map[string]string{"code": code, "result": "failed", "reason": reason})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Serve answers an authorized request; fakecloud holds Mu.
func (a *api) Serve(w http.ResponseWriter, r *http.Request, body []byte) {
	f := a.civo()
	defer f.syncKube()
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(seg) < 2 || seg[0] != "v2" {
		f.fail(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
		return
	}
	seg = seg[1:]

	// The lists that are the same in every region.
	if r.Method == http.MethodGet {
		switch strings.Join(seg, "/") {
		case "regions":
			writeJSON(w, http.StatusOK, f.regions)
			return
		case "sizes":
			writeJSON(w, http.StatusOK, f.sizes)
			return
		case "kubernetes/versions":
			writeJSON(w, http.StatusOK, f.versions)
			return
		case "kubernetes/applications":
			writeJSON(w, http.StatusOK, f.applications)
			return
		}
	}

	region, fields, ok := f.requestRegion(w, r, body)
	if !ok {
		return
	}
	req := &request{w: w, r: r, body: body, fields: fields, region: region}
	switch {
	case seg[0] == "networks":
		f.serveNetworks(req, seg[1:])
	case seg[0] == "firewalls":
		f.serveFirewalls(req, seg[1:])
	case len(seg) >= 2 && seg[0] == "kubernetes" && seg[1] == "clusters":
		f.serveClusters(req, seg[2:])
	default:
		f.fail(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
	}
}

// request is a request being answered, its body decoded into fields for POST and PUT, and the
// region it asks about (the offered region's code).
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	body   []byte
	fields map[string]json.RawMessage
	region string
}

// has tells whether the body has key.
func (q *request) has(key string) bool {
	_, ok := q.fields[key]
	return ok
}

// requestRegion reads the region a request asks about: ?region= on GET and DELETE, "region" in a
// POST or PUT body. It must name an offered region, the one the fake was pinned to if any.
func (f *Civo) requestRegion(w http.ResponseWriter, r *http.Request, body []byte) (string, map[string]json.RawMessage, bool) {
	var name string
	var fields map[string]json.RawMessage
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		name = r.URL.Query().Get("region")
		if name == "" {
			f.fail(w, http.StatusBadRequest, "region_unavailable", "no ?region= given")
			return "", nil, false
		}
	case http.MethodPost, http.MethodPut:
		if err := json.Unmarshal(body, &fields); err != nil {
			f.fail(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object: "+err.Error())
			return "", nil, false
		}
		if err := json.Unmarshal(fields["region"], &name); err != nil || name == "" {
			f.fail(w, http.StatusBadRequest, "region_unavailable", `no "region" in the body`)
			return "", nil, false
		}
	default:
		f.fail(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" "+r.URL.Path)
		return "", nil, false
	}
	code, ok := f.regionCode(name)
	if !ok || f.region != "" && !strings.EqualFold(name, f.region) {
		f.fail(w, http.StatusBadRequest, "region_unavailable", "the region "+name+" is not available to this account")
		return "", nil, false
	}
	return code, fields, true
}

// inRegion tells whether something stored in stored is found by a request about region; ""
// is every region.
func inRegion(stored, region string) bool {
	return stored == "" || region == "" || strings.EqualFold(stored, region)
}
