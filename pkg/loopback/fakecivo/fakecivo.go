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
//     BuildPolls reads. An upgrade FailUpgrades fails is then back at the old version with
//     status ERROR (no client of Civo's names a failed status: the word is the fake's), until
//     FailUpgrades clears it.
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
//
// Each part of the API is a type of its own (clusterAPI, poolAPI, Networking, Catalogue, kubeLink,
// and api, which routes a request to them), all sharing one store of the cloud's state (store.go).
package fakecivo

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// Civo is a loopback Civo API. Its state is a store, guarded by the server's Mu: the handlers run
// with it held and every method below takes it. Its methods are the test API most tests use; the
// networks and firewalls (Networking) and the catalogue (Catalogue) have their own.
type Civo struct {
	// Settings are read by the handlers as they answer; set them before the requests they shape.
	Settings
	s *store
}

// Settings change how the fake answers.
type Settings struct {
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
	f := &Civo{}
	s := newStore(&f.Settings)
	f.s = s
	s.token, s.region = token, region
	s.regions, s.versions = slices.Clone(DefaultRegions), slices.Clone(DefaultVersions)
	s.sizes, s.applications = slices.Clone(DefaultSizes), deepCopy(DefaultApplications)
	s.clusters, s.pools = map[string]*fakeCluster{}, map[string]*fakePool{}
	s.networks, s.firewalls = map[string]*fakeNetwork{}, map[string]*fakeFirewall{}
	for _, r := range s.regions {
		s.networking.defaultNetwork(r.Code)
	}
	for _, id := range clusters {
		s.clusterAPI.addKnown(id)
	}
	return f
}

// URL is the API's base URL, for civogo or CIVO_API_URL.
func (f *Civo) URL() string { return f.s.srv.URL() }

// Close stops the API: later requests find nothing listening.
func (f *Civo) Close() { f.s.srv.Close() }

// Inject adds a fault: the next matching requests get its answer instead of the API's.
func (f *Civo) Inject(fault fakecloud.Fault) { f.s.srv.Inject(fault) }

// AcceptToken makes the API accept token too, as a second key of the same account.
func (f *Civo) AcceptToken(token string) {
	f.s.locked(func() { f.s.tokens = append(f.s.tokens, token) })
}

// Fail answers the next times requests with method (any when "") with status.
func (f *Civo) Fail(method string, status, times int) {
	if times < 1 {
		return
	}
	f.s.srv.Inject(fakecloud.Fault{Method: method, Status: status, Times: times})
}

// Requests are the requests received with method ("" for all), in order.
func (f *Civo) Requests(method string) []Request { return f.s.srv.Requests(method) }

// Reset forgets the requests received.
func (f *Civo) Reset() { f.s.srv.Reset() }

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

// Catalogue is what the cloud offers: its regions, sizes and versions, which a test may replace.
func (f *Civo) Catalogue() Catalogue { return f.s.catalogue }

// Networking is the cloud's networks and firewalls.
func (f *Civo) Networking() Networking { return f.s.networking }

// LoopbackEndpoints makes the clusters created from now on answer a loopback master address and
// API endpoint (nothing serves it) instead of one from TEST-NET-3. The sandbox promises that
// nothing leaves the machine, and a client dialling a TEST-NET address sends packets out.
func (f *Civo) LoopbackEndpoints() { f.s.locked(func() { f.s.loopback = true }) }

// Hold, while on, keeps every cluster that is still building BUILDING however often it is read,
// so a test can stop a deploy in the middle of a create; turned off, the builds carry on.
func (f *Civo) Hold(on bool) { f.s.locked(func() { f.s.held = on }) }

// DefaultNetworkID is the id of region's default network ("" for a region not offered).
func (f *Civo) DefaultNetworkID(region string) string {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	code, ok := f.s.catalogue.regionCode(region)
	if !ok {
		return ""
	}
	return f.s.networking.defaultNetwork(code).n.ID
}
