//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	dodriver "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
	corev1 "k8s.io/api/core/v1"
)

var (
	providerBuild    sync.Once
	providerDir      string
	providerBinary   string
	providerBuildErr error
)

// karpenterProvider builds the clusterplane provider's operator (karpenter/cmd/karpenter-clusterplane)
// once per test binary.
func karpenterProvider(t *testing.T) string {
	t.Helper()
	providerBuild.Do(func() {
		// A folder of its own: Karpenter's kwok operator (karpenterKwok) is built only
		// by the benchmark, and building it here took minutes of CI on a cold machine for nothing.
		dir, err := os.MkdirTemp("", "karpenter-e2e-provider")
		if err != nil {
			providerBuildErr = err
			return
		}
		providerDir, providerBinary = dir, filepath.Join(dir, "karpenter-clusterplane")
		cmd := exec.Command("go", "build", "-o", providerBinary, "./cmd/karpenter-clusterplane")
		cmd.Dir = filepath.Join(root, "karpenter")
		if out, err := cmd.CombinedOutput(); err != nil {
			providerBuildErr = fmt.Errorf("build the provider's operator: %v\n%s", err, out)
		}
	})
	if providerBuildErr != nil {
		t.Fatal(providerBuildErr)
	}
	return providerBinary
}

// bootingNodes registers each node in the control plane a boot's time after the cloud reports it
// running, as a real kubelet joins minutes after the cloud says so. Without the lag the Node would
// exist before the provider's Create returns: Karpenter, which ties a Node to its NodeClaim by
// the providerID Create returns, would see the Node's event too early and wait minutes for its
// next look.
type bootingNodes struct {
	nodes fakecloud.Nodes
	boot  time.Duration
	mu    sync.Mutex
	// booting are the nodes not yet registered, each with the token of its latest add.
	booting map[string]*struct{}
}

func newBootingNodes(n fakecloud.Nodes, boot time.Duration) *bootingNodes {
	return &bootingNodes{nodes: n, boot: boot, booting: map[string]*struct{}{}}
}

// AddNode registers n after the boot, retrying for a while as a kubelet does.
func (b *bootingNodes) AddNode(n fakecloud.Node) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	token := &struct{}{}
	b.booting[n.Name] = token
	time.AfterFunc(b.boot, func() {
		for range 30 {
			b.mu.Lock()
			if b.booting[n.Name] != token { // removed, or added again since
				b.mu.Unlock()
				return
			}
			err := b.nodes.AddNode(n)
			if err == nil {
				delete(b.booting, n.Name)
			}
			b.mu.Unlock()
			if err == nil {
				return
			}
			time.Sleep(time.Second)
		}
	})
	return nil
}

// RemoveNode removes the node at once, and stops it joining if it is still booting.
func (b *bootingNodes) RemoveNode(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.booting, name)
	return b.nodes.RemoveNode(name)
}

// ticking reads the cloud's cluster every second until the test ends: the loopback clouds move a
// provisioning node on when it is read, and the real clouds move on with time whoever reads.
func ticking(t *testing.T, read func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Second):
				read()
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
}

// kubeletBoot is how long the loopback clouds' nodes take to join the control plane under
// Karpenter: a few seconds, not a real Droplet's minutes.
const kubeletBoot = 2 * time.Second

// cloudPool is what the tests read of a pool in a loopback cloud.
type cloudPool struct {
	id, size string
	count    int
	// providerIDs are its nodes' providerIDs, sorted; inOrder the same in the pool's own order.
	providerIDs, inOrder []string
}

// karpenterCloud is a loopback cloud whose one cluster's nodes are the control plane's Nodes,
// with a pool a manifest declared (tainted, so that no test pod lands on it), for the provider
// to grow and shrink pools beside.
type karpenterCloud struct {
	name, kind, plural string
	// prices are the cloud's price table, its driver's, which the provider launches by.
	prices cost.Prices
	// sizes are the sizes the NodeClass selects: two small general-purpose ones, so that ten pods
	// need several nodes of one size, whose creates the provider is to batch into one pool write
	// (with every size, one large node fits them all).
	sizes     []any
	clusterID string
	// declared is the declared pool as it was: the provider must never touch it.
	declared cloudPool
	// env points the operator at the cloud.
	env []string
	// pools are the cluster's pools now.
	pools func() []cloudPool
	// writes are the requests since reset that created, resized or deleted a pool or a node.
	writes func() []fakecloud.Request
	// requests are all the requests since reset but the harness's own reads (ticking), in order:
	// what the provider asked of the cloud.
	requests func() []fakecloud.Request
	// ticks counts the harness's reads since reset.
	ticks atomic.Int64
	reset func()
	// onWrite runs f, under the cloud's lock, on each such request once answered.
	onWrite func(f func(fakecloud.Request))
	// operator, when set, is what runs the provider's operator in place of the test's own build
	// (a script that runs its image in a container).
	operator string
}

// poolWrite tells whether r created, resized or deleted a pool or one of its nodes.
func poolWrite(r fakecloud.Request) bool {
	return r.Method != "GET" && (strings.Contains(r.Path, "/node_pools") || strings.Contains(r.Path, "/pools"))
}

// writesOf are the pool writes among the cloud's requests.
func writesOf(requests func(string) []fakecloud.Request) []fakecloud.Request {
	var out []fakecloud.Request
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		for _, r := range requests(m) {
			if poolWrite(r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// withoutTicks are requests less the first ticks GETs of path, the harness's own reads: the
// provider's requests, to count. A read of path by the provider looks the same, so the count can
// be off by the one tick in flight.
func withoutTicks(requests []fakecloud.Request, path string, ticks *atomic.Int64) []fakecloud.Request {
	left := ticks.Load()
	var out []fakecloud.Request
	for _, r := range requests {
		if left > 0 && r.Method == "GET" && r.Path == path {
			left--
			continue
		}
		out = append(out, r)
	}
	return out
}

// The declared pool's taint: what a system pool carries, and what keeps the tests' pods off it.
const declaredTaint = "CriticalAddonsOnly"

func doForKarpenter(t *testing.T, k *kube) *karpenterCloud {
	t.Helper()
	return doClusterForKarpenter(t, k, "web", "nyc1")
}

// doClusterForKarpenter is the loopback DigitalOcean with one cluster of that name in region,
// whose declared pool is named "system".
func doClusterForKarpenter(t *testing.T, k *kube, name, region string) *karpenterCloud {
	t.Helper()
	do := fakedo.New(t, doToken)
	cid := do.SeedCluster(godo.KubernetesCluster{Name: name, RegionSlug: region, NodePools: []*godo.KubernetesNodePool{
		{Name: "system", Size: "s-2vcpu-4gb", Count: 1, Taints: []godo.Taint{{Key: declaredTaint, Value: "true", Effect: "NoSchedule"}}},
	}})
	do.SetNodes(cid, newBootingNodes(k.nodes(), kubeletBoot))
	// DigitalOcean's own prices, not the fake's one round figure: the cheapest fit depends on them.
	for slug, monthly := range (dodriver.Driver{}).Prices().Sizes {
		do.Account().SetPrice(slug, monthly)
	}
	c := &karpenterCloud{name: "DigitalOcean", prices: dodriver.Driver{}.Prices(), sizes: []any{"s-2vcpu-4gb", "s-4vcpu-8gb"}, kind: "DigitalOceanNodeClass", plural: "digitaloceannodeclasses", clusterID: cid,
		env: []string{"DIGITALOCEAN_TOKEN=" + doToken, "DIGITALOCEAN_API_URL=" + do.URL()}}
	c.pools = func() []cloudPool {
		var out []cloudPool
		for _, p := range do.Pools(cid) {
			cp := cloudPool{id: p.ID, size: p.Size, count: p.Count}
			for _, n := range p.Nodes {
				cp.providerIDs = append(cp.providerIDs, "digitalocean://"+n.DropletID)
			}
			cp.inOrder = slices.Clone(cp.providerIDs)
			slices.Sort(cp.providerIDs)
			out = append(out, cp)
		}
		return out
	}
	c.declared = c.pools()[0]
	dc := godo.NewFromToken(doToken)
	dc.BaseURL, _ = dc.BaseURL.Parse(do.URL() + "/")
	ticking(t, func() { c.ticks.Add(1); _, _, _ = dc.Kubernetes.Get(context.Background(), cid) })
	c.writes = func() []fakecloud.Request { return writesOf(do.Requests) }
	c.requests = func() []fakecloud.Request {
		return withoutTicks(do.Requests(""), "/v2/kubernetes/clusters/"+cid, &c.ticks)
	}
	c.reset = func() { do.Reset(); c.ticks.Store(0) }
	c.onWrite = func(f func(fakecloud.Request)) {
		do.OnRequest(func(_ time.Time, r fakecloud.Request) {
			if poolWrite(r) {
				f(r)
			}
		})
	}
	return c
}

func civoForKarpenter(t *testing.T, k *kube) *karpenterCloud {
	t.Helper()
	civo := fakecivo.New(t, civoToken, "")
	cid := civo.SeedCluster(civogo.KubernetesCluster{Name: "web", Pools: []civogo.KubernetesPool{
		{ID: "system", Count: 1, Size: "g4s.kube.medium", Taints: []corev1.Taint{{Key: declaredTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
	}})
	civo.SetNodes(cid, newBootingNodes(k.nodes(), kubeletBoot))
	c := &karpenterCloud{name: "Civo", prices: civodriver.Driver{}.Prices(), sizes: []any{"g4s.kube.medium", "g4s.kube.large"}, kind: "CivoNodeClass", plural: "civonodeclasses", clusterID: cid,
		env: []string{"CIVO_TOKEN=" + civoToken, "CIVO_API_URL=" + civo.URL()}}
	c.pools = func() []cloudPool {
		cl, _ := civo.Cluster(cid)
		var out []cloudPool
		for _, p := range cl.Pools {
			cp := cloudPool{id: p.ID, size: p.Size, count: p.Count}
			for _, in := range p.Instances {
				cp.providerIDs = append(cp.providerIDs, "civo://"+in.ID)
			}
			cp.inOrder = slices.Clone(cp.providerIDs)
			slices.Sort(cp.providerIDs)
			out = append(out, cp)
		}
		return out
	}
	c.declared = c.pools()[0]
	cc, err := civogo.NewClientWithURL(civoToken, civo.URL(), "lon1")
	if err != nil {
		t.Fatal(err)
	}
	ticking(t, func() { c.ticks.Add(1); _, _ = cc.GetKubernetesCluster(cid) })
	c.writes = func() []fakecloud.Request { return writesOf(civo.Requests) }
	c.requests = func() []fakecloud.Request {
		return withoutTicks(civo.Requests(""), "/v2/kubernetes/clusters/"+cid, &c.ticks)
	}
	c.reset = func() { civo.Reset(); c.ticks.Store(0) }
	c.onWrite = func(f func(fakecloud.Request)) {
		civo.OnRequest(func(_ time.Time, r fakecloud.Request) {
			if poolWrite(r) {
				f(r)
			}
		})
	}
	return c
}

// karpenterOn is the control plane with Karpenter core's and the provider's CRDs, cloud c's
// NodeClass "default" for its cluster and a NodePool "default" of it, and the provider's operator
// running against the cloud. It returns the operator and the env it was started with.
func karpenterOn(t *testing.T, k *kube, c *karpenterCloud) (*operator, []string) {
	t.Helper()
	binary := c.operator
	if binary == "" {
		binary = karpenterProvider(t)
	}
	k.installCRDs(append(karpenterCoreCRDs(t), karpenterNodeClassCRDs(t)...))
	spec := map[string]any{"cluster": map[string]any{"id": c.clusterID}}
	if c.sizes != nil { // else the NodeClass's default: every size
		spec["sizeSelectorTerms"] = []any{map[string]any{"names": c.sizes}}
	}
	k.must("POST", "/apis/karpenter.clusterplane.dev/v1/"+c.plural, map[string]any{
		"apiVersion": "karpenter.clusterplane.dev/v1", "kind": c.kind, "metadata": map[string]any{"name": "default"},
		"spec": spec,
	})
	k.must("POST", "/apis/karpenter.sh/v1/nodepools", nodePool("default", "karpenter.clusterplane.dev", c.kind, "default"))
	// A short grace before a marked node without a NodeClaim is collected: a test waits for it.
	env := append([]string{"ORPHAN_GRACE=20s"}, c.env...)
	op := startOperator(t, k, "karpenter-clusterplane", binary, env...)
	waitFor(t, 2*time.Minute, "the NodeClass Ready", func() bool {
		return conditionTrue(k.must("GET", "/apis/karpenter.clusterplane.dev/v1/"+c.plural+"/default", nil), "Ready")
	})
	return op, env
}

// karpenterPools are the cloud's pools other than the declared one, and the providerIDs of all
// their nodes, sorted.
func (c *karpenterCloud) karpenterPools() ([]cloudPool, []string) {
	var pools []cloudPool
	var ids []string
	for _, p := range c.pools() {
		if p.id != c.declared.id {
			pools = append(pools, p)
			ids = append(ids, p.providerIDs...)
		}
	}
	slices.Sort(ids)
	return pools, ids
}

// claimedProviderIDs are the NodeClaims' providerIDs, sorted.
func claimedProviderIDs(claims []nodeClaim) []string {
	var ids []string
	for _, c := range claims {
		ids = append(ids, c.ProviderID)
	}
	slices.Sort(ids)
	return ids
}

// declaredUntouched fails the test unless the declared pool is as it was.
func (c *karpenterCloud) declaredUntouched(t *testing.T) {
	t.Helper()
	i := slices.IndexFunc(c.pools(), func(p cloudPool) bool { return p.id == c.declared.id })
	if i < 0 {
		t.Fatalf("%s: the declared pool %s is gone", c.name, c.declared.id)
	}
	if got := c.pools()[i]; got.count != c.declared.count || !slices.Equal(got.providerIDs, c.declared.providerIDs) {
		t.Errorf("%s: the declared pool changed: %+v, was %+v", c.name, got, c.declared)
	}
}
