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
package fakedo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
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

// DO is a loopback DigitalOcean Kubernetes API. Its state is guarded by the server's Mu: the
// handlers run with it held and every method below takes it.
type DO struct {
	srv   *fakecloud.Server
	token string
	// tokens are more tokens the API accepts (AcceptToken).
	tokens []string
	start  time.Time

	versions, sizes, regions []string
	// prices are the sizes' monthly prices GET /v2/sizes answers (SetPrice); DefaultPrice else.
	prices                map[string]float64
	provisionPolls        int
	hold                  bool
	registry              bool
	vpcs                  map[string]godo.VPC // created or seeded; defaults are computed
	order                 []string            // cluster ids, oldest first
	clusters              map[string]*cluster
	nextDroplet, nextIPv4 int
	// lint is what clusterlint finds, by cluster id (SetClusterlint); lintRuns its runs, by id.
	lint     map[string][]godo.ClusterlintDiagnostic
	lintRuns map[string]*lintRun
	lastLint string
	// loopback makes new clusters' API endpoints loopback addresses (LoopbackEndpoints).
	loopback bool
	// kube ties clusters to real control planes (SetKubeconfig, SetNodes).
	kube kube
}

// cluster is a cluster as the fake stores it, its node pools inside.
type cluster struct {
	c godo.KubernetesCluster
	// pending is how many more GETs answer "provisioning" before the cluster runs.
	pending int
	// poolPending is, by pool id, how many more polls a pool's new nodes stay provisioning.
	poolPending map[string]int
	// caPEM is the cluster's certificate authority, made when credentials are first asked for.
	caPEM []byte
}

// New starts the API, answering only token; it stops when the test ends.
func New(t fakecloud.TB, token string) *DO {
	t.Helper()
	return NewFor(t, token, 0, fakecloud.Lifetime)
}

// newDO is a cloud with the default catalogue and nothing in it.
func newDO(token string) *DO {
	return &DO{
		token:       token,
		start:       time.Now().UTC().Truncate(time.Second),
		versions:    slices.Clone(DefaultVersions),
		sizes:       slices.Clone(DefaultSizes),
		regions:     slices.Clone(DefaultRegions),
		registry:    true,
		vpcs:        map[string]godo.VPC{},
		clusters:    map[string]*cluster{},
		nextDroplet: 400000001,
		nextIPv4:    10,
	}
}

// URL is the API's base URL, for godo.SetBaseURL or DIGITALOCEAN_API_URL.
func (d *DO) URL() string { return d.srv.URL() }

// Setenv points DigitalOcean's clients at this API until the test ends, as a user's shell points
// them at DigitalOcean: tokenEnv holds the token the API answers and urlEnv its URL. Tests pass
// the driver's own names (digitalocean.Env.TokenEnv, digitalocean.Env.URLEnv); the fake imports
// nothing of the project but its fellow loopback packages, and the driver imports packages whose
// tests start this fake.
func (d *DO) Setenv(t testing.TB, tokenEnv, urlEnv string) {
	t.Helper()
	t.Setenv(tokenEnv, d.token)
	t.Setenv(urlEnv, d.URL())
}

// Close stops the API: later requests find nothing listening.
func (d *DO) Close() { d.srv.Close() }

// Inject asks for a fault (a 429, a 500, a slow answer, a 404 right after a create).
func (d *DO) Inject(f fakecloud.Fault) { d.srv.Inject(f) }

// Requests are the requests received with method ("" for all), in order.
func (d *DO) Requests(method string) []fakecloud.Request { return d.srv.Requests(method) }

// AcceptToken makes the API accept token too, as a second key of the same account.
func (d *DO) AcceptToken(token string) { d.set(func() { d.tokens = append(d.tokens, token) }) }

// Reset forgets the requests received.
func (d *DO) Reset() { d.srv.Reset() }

// LastBody is the JSON body of the last request with method whose path starts with pathPrefix,
// decoded; the test fails when there is none.
func (d *DO) LastBody(t testing.TB, method, pathPrefix string) map[string]any {
	t.Helper()
	reqs := d.srv.Requests(method)
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

// SetVersions replaces the version slugs the fake offers.
func (d *DO) SetVersions(slugs ...string) { d.set(func() { d.versions = slices.Clone(slugs) }) }

// SetSizes replaces the droplet sizes the fake accepts for nodes.
func (d *DO) SetSizes(slugs ...string) { d.set(func() { d.sizes = slices.Clone(slugs) }) }

// DefaultPrice is the monthly price /v2/sizes gives a size SetPrice did not price: a round figure
// no real size has, so that a test can tell the API's price from a table's.
const DefaultPrice = 10

// SetPrice sets the monthly price /v2/sizes gives a size (its hourly price is that / 672).
func (d *DO) SetPrice(slug string, monthly float64) {
	d.set(func() {
		if d.prices == nil {
			d.prices = map[string]float64{}
		}
		d.prices[slug] = monthly
	})
}

// SetRegions replaces the regions the fake accepts; each has a default VPC.
func (d *DO) SetRegions(slugs ...string) { d.set(func() { d.regions = slices.Clone(slugs) }) }

// SetProvisionPolls sets how many GETs a new cluster, or a pool's new nodes, answer
// "provisioning" before they run; 0 (the default) runs them on the first GET. A GET of a cluster
// counts as a poll of each of its pools too.
func (d *DO) SetProvisionPolls(n int) { d.set(func() { d.provisionPolls = n }) }

// SetHold, while on, keeps whatever is provisioning provisioning, however often it is polled:
// a deploy can be stopped in the middle of a create.
func (d *DO) SetHold(hold bool) { d.set(func() { d.hold = hold }) }

// SetRegistry says whether the account has a container registry (it has one by default).
func (d *DO) SetRegistry(has bool) { d.set(func() { d.registry = has }) }

// SeedVPC adds a VPC in region, as if created earlier.
func (d *DO) SeedVPC(id, region string) {
	d.set(func() {
		d.vpcs[id] = d.newVPC(id, "vpc-"+region+"-"+id[:min(8, len(id))], region, "10.120.0.0/20", false)
	})
}

// DefaultVPC is the id of region's default VPC, where a cluster created without vpc_uuid goes.
func DefaultVPC(region string) string {
	return uuidFrom("default-vpc:" + region)
}

func (d *DO) set(f func()) {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	f()
}

// Clusters are the clusters, oldest first, as the API would report them.
func (d *DO) Clusters() []godo.KubernetesCluster {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	out := make([]godo.KubernetesCluster, 0, len(d.order))
	for _, id := range d.order {
		out = append(out, clone(d.clusters[id].c))
	}
	return out
}

// Cluster is the cluster with id, and whether it exists.
func (d *DO) Cluster(id string) (godo.KubernetesCluster, bool) {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	cl, ok := d.clusters[id]
	if !ok {
		return godo.KubernetesCluster{}, false
	}
	return clone(cl.c), true
}

// ClusterNamed is the oldest cluster named name, and whether there is one.
func (d *DO) ClusterNamed(name string) (godo.KubernetesCluster, bool) {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	for _, id := range d.order {
		if d.clusters[id].c.Name == name {
			return clone(d.clusters[id].c), true
		}
	}
	return godo.KubernetesCluster{}, false
}

// SeedCluster puts a running cluster in, as if created earlier, filling what a create would
// (ids, DigitalOcean's tags, defaults, nodes for each pool's count); it keeps a given id and
// replaces a cluster that has it. It returns the cluster's id.
func (d *DO) SeedCluster(c godo.KubernetesCluster) string {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	c = clone(c)
	if c.ID == "" {
		c.ID = newUUID()
	}
	if c.VPCUUID != "" {
		if _, ok := d.vpc(c.VPCUUID); !ok {
			region := c.RegionSlug
			if region == "" {
				region = d.firstRegion()
			}
			d.vpcs[c.VPCUUID] = d.newVPC(c.VPCUUID, "seeded-"+region, region, "10.130.0.0/20", false)
		}
	}
	cl := &cluster{c: c, poolPending: map[string]int{}}
	d.fill(&cl.c)
	if _, ok := d.clusters[c.ID]; !ok {
		d.order = append(d.order, c.ID)
	}
	d.clusters[c.ID] = cl
	return c.ID
}

// EditCluster changes a cluster behind its clients' backs (an autoscaler's count, an automatic
// patch upgrade, a tag edited in the console), then fills what the edit left out as SeedCluster
// does: a pool whose count changed gets or loses running nodes. It tells whether the cluster
// exists.
func (d *DO) EditCluster(id string, edit func(*godo.KubernetesCluster)) bool {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	cl, ok := d.clusters[id]
	if !ok {
		return false
	}
	c := clone(cl.c)
	edit(&c)
	c.ID = id
	c.UpdatedAt = now()
	d.fill(&c)
	cl.c = c
	d.forgetPending(cl)
	return true
}

// Pool is the node pool poolID of cluster clusterID, and whether it exists.
func (d *DO) Pool(clusterID, poolID string) (godo.KubernetesNodePool, bool) {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	if p := d.pool(clusterID, poolID); p != nil {
		return clone(*p), true
	}
	return godo.KubernetesNodePool{}, false
}

// Pools are the node pools of a cluster, oldest first; none when it does not exist.
func (d *DO) Pools(clusterID string) []godo.KubernetesNodePool {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	cl, ok := d.clusters[clusterID]
	if !ok {
		return nil
	}
	out := make([]godo.KubernetesNodePool, 0, len(cl.c.NodePools))
	for _, p := range cl.c.NodePools {
		out = append(out, clone(*p))
	}
	return out
}

// PoolNamed is a cluster's node pool named name, and whether there is one.
func (d *DO) PoolNamed(clusterID, name string) (godo.KubernetesNodePool, bool) {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	if cl, ok := d.clusters[clusterID]; ok {
		for _, p := range cl.c.NodePools {
			if p.Name == name {
				return clone(*p), true
			}
		}
	}
	return godo.KubernetesNodePool{}, false
}

// EditPool changes a node pool behind its clients' backs, as EditCluster does a cluster. It
// tells whether the pool exists.
func (d *DO) EditPool(clusterID, poolID string, edit func(*godo.KubernetesNodePool)) bool {
	d.srv.Mu.Lock()
	defer d.srv.Mu.Unlock()
	cl, ok := d.clusters[clusterID]
	if !ok {
		return false
	}
	for i, p := range cl.c.NodePools {
		if p.ID != poolID {
			continue
		}
		edited := clone(*p)
		edit(&edited)
		edited.ID = poolID
		d.fillPool(clusterID, &edited, stateRunning)
		cl.c.NodePools[i] = &edited
		cl.c.UpdatedAt = now()
		d.forgetPending(cl)
		return true
	}
	return false
}

// forgetPending drops the provisioning counts of pools that are gone or fully running.
func (d *DO) forgetPending(cl *cluster) {
	for pid := range cl.poolPending {
		p := poolIn(&cl.c, pid)
		if p == nil || !provisioning(p) {
			delete(cl.poolPending, pid)
		}
	}
}

// fill completes a cluster as a create would have made it, running.
func (d *DO) fill(c *godo.KubernetesCluster) {
	t := now()
	if c.Name == "" {
		c.Name = "cluster-" + c.ID[:min(8, len(c.ID))]
	}
	if c.RegionSlug == "" {
		c.RegionSlug = d.firstRegion()
	}
	if c.VersionSlug == "" {
		c.VersionSlug = d.latestVersion()
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
		d.fillPool(c.ID, p, stateRunning)
	}
}

// fillPool completes a pool: its id, DigitalOcean's tags, and as many nodes as its count, the
// new ones in state.
func (d *DO) fillPool(clusterID string, p *godo.KubernetesNodePool, state string) {
	if p.ID == "" {
		p.ID = newUUID()
	}
	p.Tags = poolTags(p.Tags, clusterID)
	d.resize(p, state)
	t := now()
	for _, n := range p.Nodes {
		if n.ID == "" {
			n.ID = newUUID()
		}
		if n.Name == "" {
			n.Name = nodeName(p.Name)
		}
		if n.Status == nil || n.Status.State == "" {
			n.Status = &godo.KubernetesNodeStatus{State: state}
		}
		if n.DropletID == "" {
			n.DropletID = d.newDropletID()
		}
		if n.CreatedAt.IsZero() {
			n.CreatedAt = t
		}
		if n.UpdatedAt.IsZero() {
			n.UpdatedAt = t
		}
	}
}

// resize gives a pool as many nodes as its count: the first ones stay, new ones are in state.
func (d *DO) resize(p *godo.KubernetesNodePool, state string) {
	if p.Count < 0 {
		p.Count = 0
	}
	if len(p.Nodes) > p.Count {
		p.Nodes = p.Nodes[:p.Count]
	}
	t := now()
	for len(p.Nodes) < p.Count {
		p.Nodes = append(p.Nodes, &godo.KubernetesNode{
			ID:        newUUID(),
			Name:      nodeName(p.Name),
			Status:    &godo.KubernetesNodeStatus{State: state},
			DropletID: d.newDropletID(),
			CreatedAt: t,
			UpdatedAt: t,
		})
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

func (d *DO) firstRegion() string {
	if len(d.regions) > 0 {
		return d.regions[0]
	}
	return "nyc1"
}

// vpc finds a created, seeded or default VPC.
func (d *DO) vpc(id string) (godo.VPC, bool) {
	if v, ok := d.vpcs[id]; ok {
		return v, true
	}
	for i, r := range d.regions {
		if DefaultVPC(r) == id {
			return d.defaultVPC(i, r), true
		}
	}
	return godo.VPC{}, false
}

func (d *DO) defaultVPC(i int, region string) godo.VPC {
	return d.newVPC(DefaultVPC(region), "default-"+region, region, fmt.Sprintf("10.%d.0.0/20", 100+i%100), true)
}

func (d *DO) newVPC(id, name, region, ipRange string, isDefault bool) godo.VPC {
	return godo.VPC{ID: id, URN: "do:vpc:" + id, Name: name, IPRange: ipRange, RegionSlug: region, CreatedAt: d.start, Default: isDefault}
}

func (d *DO) newIPv4() string {
	d.nextIPv4++
	return fmt.Sprintf("203.0.113.%d", d.nextIPv4%254+1)
}

func (d *DO) newDropletID() string {
	d.nextDroplet++
	return fmt.Sprint(d.nextDroplet)
}

// LoopbackEndpoint is a cluster's API endpoint under LoopbackEndpoints: an address on this
// machine that nothing serves, so a client that dials it is refused at once.
const LoopbackEndpoint = "https://127.0.0.1:9"

// LoopbackEndpoints makes the clusters created from now on answer a loopback API endpoint instead
// of a name under k8s.ondigitalocean.com. The sandbox promises that nothing leaves the machine,
// and a client dialling such a name (upgrade plan reading a cluster) sends a DNS query out first.
func (d *DO) LoopbackEndpoints() { d.set(func() { d.loopback = true }) }

func endpoint(clusterID string) string { return "https://" + clusterID + ".k8s.ondigitalocean.com" }

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

// api is the DO as fakecloud.Cloud: its own type, so Serve and the others stay out of the methods
// tests see.
type api DO

func (a *api) do() *DO { return (*DO)(a) }

// Authorized tells whether r carries the token as godo sends it, "Authorization: Bearer <token>".
func (a *api) Authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && (token == a.token || slices.Contains(a.tokens, token))
}

// Error writes DigitalOcean's error body.
func (a *api) Error(w http.ResponseWriter, status int, message string) {
	id := newUUID()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", id)
	writeJSON(w, status, map[string]string{"id": errorID(status), "message": message, "request_id": id})
}

// errorID is the snake_case id DigitalOcean gives an error's status.
func errorID(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusUnprocessableEntity:
		return "unprocessable_entity"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusInternalServerError:
		return "server_error"
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// Serve routes a request; it runs with the server's Mu held.
func (a *api) Serve(w http.ResponseWriter, r *http.Request, body []byte) {
	d := a.do()
	defer d.syncNodes()
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	route := func(method string, parts ...string) bool {
		if r.Method != method || len(seg) != len(parts) {
			return false
		}
		for i, p := range parts {
			if p != "*" && p != seg[i] {
				return false
			}
		}
		return true
	}
	const k8s, clusters, pools = "kubernetes", "clusters", "node_pools"
	switch {
	case route("GET", "v2", k8s, clusters):
		d.listClusters(w, r)
	case route("POST", "v2", k8s, clusters):
		d.createCluster(w, body)
	case route("GET", "v2", k8s, clusters, "*"):
		d.getCluster(w, seg[3])
	case route("PUT", "v2", k8s, clusters, "*"):
		d.updateCluster(w, seg[3], body)
	case route("DELETE", "v2", k8s, clusters, "*"),
		route("DELETE", "v2", k8s, clusters, "*", "destroy_with_associated_resources", "dangerous"):
		d.deleteCluster(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "destroy_with_associated_resources"):
		d.associatedResources(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "credentials"):
		d.credentials(w, r, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "kubeconfig"):
		d.kubeconfig(w, r, seg[3])
	case route("POST", "v2", k8s, clusters, "*", "upgrade"):
		d.upgrade(w, seg[3], body)
	case route("GET", "v2", k8s, clusters, "*", "upgrades"):
		d.upgrades(w, seg[3])
	case route("POST", "v2", k8s, clusters, "*", "clusterlint"):
		d.runClusterlint(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "clusterlint"):
		d.clusterlintResults(w, r, seg[3])
	case route("GET", "v2", k8s, clusters, "*", pools):
		d.listPools(w, r, seg[3])
	case route("POST", "v2", k8s, clusters, "*", pools):
		d.createPool(w, seg[3], body)
	case route("GET", "v2", k8s, clusters, "*", pools, "*"):
		d.getPool(w, seg[3], seg[5])
	case route("PUT", "v2", k8s, clusters, "*", pools, "*"):
		d.updatePool(w, seg[3], seg[5], body)
	case route("DELETE", "v2", k8s, clusters, "*", pools, "*"):
		d.deletePool(w, seg[3], seg[5])
	case route("DELETE", "v2", k8s, clusters, "*", pools, "*", "nodes", "*"):
		d.deleteNode(w, r, seg[3], seg[5], seg[7])
	case route("GET", "v2", k8s, "options"):
		d.options(w)
	case route("GET", "v2", "sizes"):
		d.listSizes(w)
	case route("POST", "v2", k8s, "registry"):
		d.integrateRegistry(w, body, true)
	case route("DELETE", "v2", k8s, "registry"):
		d.integrateRegistry(w, body, false)
	case route("GET", "v2", "registry"):
		d.getRegistry(w)
	case route("GET", "v2", "vpcs"):
		d.listVPCs(w, r)
	case route("POST", "v2", "vpcs"):
		d.createVPC(w, body)
	case route("GET", "v2", "vpcs", "*"):
		d.getVPC(w, seg[2])
	default:
		a.Error(w, http.StatusNotFound, "The resource you were accessing could not be found.")
	}
}

// fail writes an error as DigitalOcean words its shape.
func (d *DO) fail(w http.ResponseWriter, status int, format string, args ...any) {
	(*api)(d).Error(w, status, fmt.Sprintf(format, args...))
}

func (d *DO) notFound(w http.ResponseWriter) {
	d.fail(w, http.StatusNotFound, "The resource you were accessing could not be found.")
}

// invalid answers 422 with the fake's wording of a validation error.
func (d *DO) invalid(w http.ResponseWriter, format string, args ...any) {
	d.fail(w, http.StatusUnprocessableEntity, format, args...)
}
