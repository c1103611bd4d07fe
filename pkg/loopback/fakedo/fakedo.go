// Package fakedo is a loopback DigitalOcean Kubernetes API for tests: clusters, node pools,
// credentials, upgrades, clusterlint, options, the container registry integration and the VPCs a
// cluster is placed in. What it accepts and answers is what godo v1.172.0, as vendored by
// terraform-provider-digitalocean v2.75.0 (the provider inside pulumi-digitalocean 4.57.0),
// sends and decodes, so that provider's plugin can create, read, update, import and delete
// clusters and node pools against it; tests drive it with godo v1.236.0, whose types it uses to
// encode its answers.
//
// Every cluster it reports carries what the provider reads without checking for nil: a
// maintenance_policy, a status with a state, created_at and updated_at, and node pools whose
// pools and nodes all have ids and statuses.
//
// Where DigitalOcean's behaviour cannot be read from its clients, the fake chose:
//
//   - A PUT changes only the keys present in its body. A key godo leaves out (omitempty: a false
//     surge_upgrade, empty tags, empty labels) keeps the stored value, so a later read shows what
//     never reached the cloud.
//   - A JSON null for a scalar or an object (a name, ha, "enabled", a threshold, a whole
//     maintenance_policy or plugin object) says nothing: the stored value stays. A JSON null for
//     a list or a map (tags, allowed_addresses, expanders, labels, taints) empties it, because
//     godo sends an emptied Go slice as null and has no other way to say "none".
//   - In cluster_autoscaler_configuration a zero value (a threshold of 0, an unneeded time of "",
//     no expanders) unsets that setting, which is how the provider removes one; a configuration
//     with no setting left reads back as absent, as it does for a cluster created without one.
//   - An empty maintenance start_time or day is not given: a create uses 00:00 and "any", an
//     update keeps the stored one. The duration is always the fake's 4h0m0s.
//   - ha cannot go from true to false (422); upgrades go up only, to an offered version in the
//     same or the next minor release (422 "invalid upgrade path" otherwise).
//   - The defaults of a cluster created without them: control_plane_firewall disabled with no
//     addresses, routing_agent and the four GPU/RDMA plugins disabled, no autoscaler
//     configuration, subnets 10.244.0.0/16 and 10.245.0.0/16, the region's default VPC.
//   - Error wordings ("validation error: invalid region", "invalid upgrade path: ...") are the
//     fake's; the error body's shape ({"id", "message", "request_id"}) is DigitalOcean's.
//   - Updates and upgrades answer 202 Accepted, as DigitalOcean documents; deletes and the
//     registry calls answer 204.
//   - A cluster is deleted at once: the next GET answers 404.
//   - An upgrade ends at once unless SetUpgradeTime gives it a time. Meanwhile the cluster reports
//     status.state "upgrading" at its old version_slug and every node it had running restarts
//     in place (same id and name, status "provisioning"); a second POST .../upgrade answers 422
//     "cluster is already upgrading". An upgrade FailUpgrades fails leaves the cluster at its old
//     version_slug, "degraded", its nodes running, until FailUpgrades clears it.
//
// Each part of the API is a type of its own (clusterAPI, poolAPI, Account, vpcAPI, clusterlint,
// kubeLink, and api, which routes a request to them), all sharing one store of the cloud's state
// (store.go).
package fakedo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// Defaults of the lists a test can replace with SetVersions, SetSizes and SetRegions; New copies
// them, so changing one changes only the fakes started later.
var (
	DefaultVersions = []string{"1.30.10-do.0", "1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"}
	DefaultSizes    = []string{
		"s-1vcpu-2gb", "s-2vcpu-2gb", "s-2vcpu-4gb", "s-4vcpu-8gb", "s-8vcpu-16gb",
		"s-2vcpu-4gb-amd", "s-4vcpu-8gb-intel", "c-2", "c-4", "c-8", "g-2vcpu-8gb", "g-4vcpu-16gb",
		"m-2vcpu-16gb", "so-2vcpu-16gb", "gpu-h100x1-80gb", "gpu-h100x8-640gb",
	}
	DefaultRegions = []string{"nyc1", "nyc3", "sfo2", "sfo3", "ams3", "sgp1", "lon1", "fra1", "tor1", "blr1", "syd1", "atl1"}
)

// regionNames are the names DigitalOcean gives the regions the fake knows; others are named by slug.
var regionNames = map[string]string{
	"nyc1": "New York 1", "nyc3": "New York 3", "sfo2": "San Francisco 2", "sfo3": "San Francisco 3",
	"ams3": "Amsterdam 3", "sgp1": "Singapore 1", "lon1": "London 1", "fra1": "Frankfurt 1",
	"tor1": "Toronto 1", "blr1": "Bangalore 1", "syd1": "Sydney 1", "atl1": "Atlanta 1",
}

const (
	defaultClusterSubnet = "10.244.0.0/16"
	defaultServiceSubnet = "10.245.0.0/16"
	// maintenanceDuration is what the fake reports as every maintenance window's length.
	maintenanceDuration = "4h0m0s"
	// defaultCredentialSeconds is how long credentials last when no expiry (or 0) is asked for.
	defaultCredentialSeconds = 7 * 24 * 60 * 60

	stateProvisioning = "provisioning"
	stateRunning      = "running"
)

// DO is a loopback DigitalOcean Kubernetes API. Its state is a store, guarded by the server's Mu:
// the handlers run with it held and every method below takes it. Its methods are the test API
// most tests use; what the account offers (versions, sizes, regions, prices, the registry, VPCs)
// is set through Account.
type DO struct{ s *store }

// cluster is a cluster as the fake stores it, its node pools inside.
type cluster struct {
	c godo.KubernetesCluster
	// pending is how many more GETs answer "provisioning" before the cluster runs.
	pending int
	// poolPending is, by pool id, how many more polls a pool's new nodes stay provisioning.
	poolPending map[string]int
	// caPEM is the cluster's certificate authority, made when credentials are first asked for.
	caPEM []byte
	// upgrade is the upgrade under way, nil when none (upgraderun.go).
	upgrade *upgradeRun
	// failedUpgrade says the cluster is degraded because its last upgrade failed (FailUpgrades).
	failedUpgrade bool
}

// New starts the API, answering only token; it stops when the test ends.
func New(t fakecloud.TB, token string) *DO {
	t.Helper()
	return NewFor(t, token, 0, fakecloud.Lifetime)
}

// newDO is a cloud with the default catalogue and nothing in it.
func newDO(token string) *DO {
	s := newStore()
	s.token, s.start = token, time.Now().UTC().Truncate(time.Second)
	s.versions, s.sizes, s.regions = slices.Clone(DefaultVersions), slices.Clone(DefaultSizes), slices.Clone(DefaultRegions)
	s.registry = true
	s.vpcs, s.clusters = map[string]godo.VPC{}, map[string]*cluster{}
	s.nextDroplet, s.nextIPv4 = 400000001, 10
	return &DO{s: s}
}

// URL is the API's base URL, for godo.SetBaseURL or DIGITALOCEAN_API_URL.
func (d *DO) URL() string { return d.s.srv.URL() }

// Setenv points DigitalOcean's clients at this API until the test ends, as a user's shell points
// them at DigitalOcean: tokenEnv holds the token the API answers and urlEnv its URL. Tests pass
// the driver's own names (digitalocean.Env.TokenEnv, digitalocean.Env.URLEnv); the fake imports
// nothing of the project but its fellow loopback packages, and the driver imports packages whose
// tests start this fake.
func (d *DO) Setenv(t testing.TB, tokenEnv, urlEnv string) {
	t.Helper()
	t.Setenv(tokenEnv, d.s.token)
	t.Setenv(urlEnv, d.URL())
}

// Close stops the API: later requests find nothing listening.
func (d *DO) Close() { d.s.srv.Close() }

// Inject asks for a fault (a 429, a 500, a slow answer, a 404 right after a create).
func (d *DO) Inject(f fakecloud.Fault) { d.s.srv.Inject(f) }

// Requests are the requests received with method ("" for all), in order.
func (d *DO) Requests(method string) []fakecloud.Request { return d.s.srv.Requests(method) }

// AcceptToken makes the API accept token too, as a second key of the same account.
func (d *DO) AcceptToken(token string) { d.s.set(func() { d.s.tokens = append(d.s.tokens, token) }) }

// Reset forgets the requests received.
func (d *DO) Reset() { d.s.srv.Reset() }

// LastBody is the JSON body of the last request with method whose path starts with pathPrefix,
// decoded; the test fails when there is none.
func (d *DO) LastBody(t testing.TB, method, pathPrefix string) map[string]any {
	t.Helper()
	reqs := d.s.srv.Requests(method)
	for i := len(reqs) - 1; i >= 0; i-- {
		if !strings.HasPrefix(reqs[i].Path, pathPrefix) {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(reqs[i].Body), &body); err != nil {
			t.Fatalf("the last %s %s* body %q is not a JSON object: %v", method, pathPrefix, reqs[i].Body, err)
		}
		return body
	}
	t.Fatalf("no %s request under %s was received", method, pathPrefix)
	return nil
}

// SetProvisionPolls sets how many GETs a new cluster, or a pool's new nodes, answer
// "provisioning" before they run; 0 (the default) runs them on the first GET. A GET of a cluster
// counts as a poll of each of its pools too.
func (d *DO) SetProvisionPolls(n int) { d.s.set(func() { d.s.provisionPolls = n }) }

// SetHold, while on, keeps whatever is provisioning provisioning, however often it is polled:
// a deploy can be stopped in the middle of a create.
func (d *DO) SetHold(hold bool) { d.s.set(func() { d.s.hold = hold }) }

// DefaultVPC is the id of region's default VPC, where a cluster created without vpc_uuid goes.
func DefaultVPC(region string) string {
	return uuidFrom("default-vpc:" + region)
}

// LoopbackEndpoint is a cluster's API endpoint under LoopbackEndpoints: an address on this
// machine that nothing serves, so a client that dials it is refused at once.
const LoopbackEndpoint = "https://127.0.0.1:9"

// Account is what the account offers and holds beside its clusters: versions, sizes, regions,
// prices, its container registry and VPCs.
func (d *DO) Account() Account { return d.s.account }

// LoopbackEndpoints makes the clusters created from now on answer a loopback API endpoint instead
// of a name under k8s.ondigitalocean.com. The sandbox promises that nothing leaves the machine,
// and a client dialling such a name (upgrade plan reading a cluster) sends a DNS query out first.
func (d *DO) LoopbackEndpoints() { d.s.set(func() { d.s.loopback = true }) }

// nodeName is a node's name as DigitalOcean makes it: the pool's name and five random characters.
func nodeName(pool string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return pool + "-" + string(b)
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// uuidFrom is a stable uuid for a name, so a region's default VPC has the same id in every fake.
func uuidFrom(name string) string {
	sum := sha256.Sum256([]byte(name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// clone is a deep copy through JSON, which is also what a client would get.
func clone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakedo: encode %T: %v", v, err))
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("fakedo: decode %T: %v", v, err))
	}
	return out
}
