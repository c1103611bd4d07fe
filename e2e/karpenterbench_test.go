//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// benchKarpenterEnv turns the Karpenter figures on: make bench-karpenter sets it. They take
// minutes of a busy machine, so make e2e leaves them out.
const benchKarpenterEnv = "CLUSTERPLANE_BENCH_KARPENTER"

// Figures for bench/README.md, printed as BENCH lines: how long a pending pod waits for a Ready
// node, and what 100 pending pods cost (time, NodeClaims, node creates). Karpenter core with its
// kwok provider on the real control plane: the floor the clouds' provider adds its requests to.
func TestKarpenterBenchPendingPodToReadyNode(t *testing.T) {
	if os.Getenv(benchKarpenterEnv) == "" {
		t.Skip("a benchmark: make bench-karpenter runs it (" + benchKarpenterEnv + "=1)")
	}
	rounds := 5
	k := karpenterOnKwok(t)
	cs := k.clientset()
	pendingPods(t, cs, "bench", 0, "1", "1Gi")
	took := pendingPodRounds(t, k, rounds, "new node", nil)
	fmt.Printf("BENCH karpenter-kwok pending-pod-to-ready-node rounds=%d %s\n", rounds, spread(took))

	start := time.Now()
	scale(t, cs, "bench", 100)
	waitFor(t, 5*time.Minute, "100 pods running", func() bool { return runningPods(t, cs, "bench") == 100 })
	took100 := time.Since(start)
	claims := k.nodeClaims()
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, c := range claims {
		types[c.InstanceType]++
	}
	fmt.Printf("BENCH karpenter-kwok 100-pending-pods running-after=%s nodeclaims=%d nodes=%d types=%v memory=%q\n",
		took100.Round(10*time.Millisecond), len(claims), len(nodes.Items), types, k.memory())
}

// DigitalOcean's API limits per token (docs.digitalocean.com/reference/api/#rate-limit): the
// provider's requests on both clouds are set against them.
const (
	doRequestsPerMinute = 250
	doRequestsPerHour   = 5000
)

// The same figures with the clouds' own provider (karpenter/, the karpenter-clusterplane operator)
// against each loopback cloud, its nodes registered in the control plane as they join: a pending
// pod's wait for a Ready pool node, then what 100 pending pods cost in time, NodeClaims, nodes and
// the cloud requests the provider made, counted at the loopback cloud, and the provider's
// requests per minute once they all run (its standing reads). The NodeClass selects the flow's
// two small sizes, so 100 pods need tens of nodes: the case where requests could grow with nodes.
func TestKarpenterBenchCloudRequestsForPendingPods(t *testing.T) {
	if os.Getenv(benchKarpenterEnv) == "" {
		t.Skip("a benchmark: make bench-karpenter runs it (" + benchKarpenterEnv + "=1)")
	}
	for _, cloud := range karpenterClouds {
		t.Run(cloud.name, func(t *testing.T) {
			k := newKubeCluster(t)
			c := cloud.setup(t, k)
			op, env := karpenterOn(t, k, c)
			// The e2e's 20 s orphan grace has garbage collection read the cloud every 2 s (a tenth
			// of the grace); the bench measures what a user gets, with the default 10 minutes
			// (karpenter/pkg/cloudprovider.DefaultOrphanGrace): a read a minute.
			op.kill()
			op = startOperator(t, k, "karpenter-clusterplane", karpenterProvider(t), append(env, "ORPHAN_GRACE=10m")...)
			cs := k.clientset()
			pendingPods(t, cs, "bench", 0, "1", "1Gi")
			benchPendingPodRounds(t, k, c, 5)
			benchHundredPods(t, k, c, op)
		})
	}
}

// benchPendingPodRounds prints how long one pending pod waits to run on a new pool node, over
// rounds each from no node of the provider's, and the requests one such node costs.
func benchPendingPodRounds(t *testing.T, k *kube, c *karpenterCloud, rounds int) {
	t.Helper()
	c.reset()
	took := pendingPodRounds(t, k, rounds, "new pool node", func() {
		waitFor(t, time.Minute, "the provider's pool deleted", func() bool {
			pools, _ := c.karpenterPools()
			return len(pools) == 0
		})
	})
	fmt.Printf("BENCH karpenter-%s pending-pod-to-ready-node rounds=%d %s requests-per-round=%.1f (%s)\n",
		c.name, rounds, spread(took), float64(len(c.requests()))/float64(rounds), tally(c.requests()))
}

// pendingPodRounds measures, rounds times, how long deployment bench's one pod waits to run on
// a new node (named node in the wait's message), from no node of Karpenter's: each round scales
// to one pod, then back to none and waits for the node to be consolidated away, and for
// emptied, when given (the clouds' provider must also have deleted its pool). The waits come
// back sorted. Karpenter on kwok and the clouds' provider are measured by the same rounds, so
// that their figures compare.
func pendingPodRounds(t *testing.T, k *kube, rounds int, node string, emptied func()) []time.Duration {
	t.Helper()
	cs := k.clientset()
	var took []time.Duration
	for range rounds {
		start := time.Now()
		scale(t, cs, "bench", 1)
		waitFor(t, 3*time.Minute, "the pod running on a "+node, func() bool { return runningPods(t, cs, "bench") == 1 })
		took = append(took, time.Since(start))
		scale(t, cs, "bench", 0)
		waitFor(t, 3*time.Minute, "the node consolidated away", func() bool { return len(k.nodeClaims()) == 0 })
		if emptied != nil {
			emptied()
		}
	}
	slices.Sort(took)
	return took
}

// spread is the min, median and max of sorted waits, as the BENCH lines print them.
func spread(took []time.Duration) string {
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	return fmt.Sprintf("min=%s median=%s max=%s", r(took[0]), r(took[len(took)/2]), r(took[len(took)-1]))
}

// benchHundredPods prints what 100 pending pods of 1 CPU and 1 GiB cost: the time until all run,
// the NodeClaims, Nodes and pools made, and the provider's requests by kind, until then and in
// the minute after.
func benchHundredPods(t *testing.T, k *kube, c *karpenterCloud, op *operator) {
	t.Helper()
	cs := k.clientset()
	c.reset()
	calls := providerCalls(t, op)
	start := time.Now()
	scale(t, cs, "bench", 100)
	waitFor(t, 10*time.Minute, "100 pods running", func() bool { return runningPods(t, cs, "bench") == 100 })
	took := time.Since(start)
	requests := c.requests()
	claims := k.nodeClaims()
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "karpenter.sh/nodepool"})
	if err != nil {
		t.Fatal(err)
	}
	pools, _ := c.karpenterPools()
	types := map[string]int{}
	for _, cl := range claims {
		types[cl.InstanceType]++
	}
	perMinute := float64(len(requests)) / took.Minutes()
	fmt.Printf("BENCH karpenter-%s 100-pending-pods running-after=%s nodeclaims=%d nodes=%d pools=%d types=%v memory=%q\n",
		c.name, took.Round(10*time.Millisecond), len(claims), len(nodes.Items), len(pools), types, k.memory())
	fmt.Printf("BENCH karpenter-%s 100-pending-pods requests=%d per-minute=%.0f (DigitalOcean allows %d) %s; provider calls: %s\n",
		c.name, len(requests), perMinute, doRequestsPerMinute, tally(requests), callsSince(calls, providerCalls(t, op)))

	// Once all run the provider still reads (Karpenter's checks and garbage collection): what that
	// costs an hour decides whether it fits beside the rest of a token's use. A disruption budget
	// of no node holds consolidation off, so that the minute measures the standing reads alone.
	k.patch("/apis/karpenter.sh/v1/nodepools/default", map[string]any{"spec": map[string]any{"disruption": map[string]any{
		"budgets": []any{map[string]any{"nodes": "0"}}}}})
	time.Sleep(5 * time.Second) // consolidation started before the patch ends
	const idle = time.Minute
	c.reset()
	calls = providerCalls(t, op)
	time.Sleep(idle)
	steady := c.requests()
	nodeClaims := len(k.nodeClaims())
	fmt.Printf("BENCH karpenter-%s steady-with-%d-nodes requests-per-minute=%.0f per-hour=%.0f (DigitalOcean allows %d) %s; provider calls: %s\n",
		c.name, nodeClaims, float64(len(steady))/idle.Minutes(), float64(len(steady))/idle.Hours(), doRequestsPerHour,
		tally(steady), callsSince(calls, providerCalls(t, op)))
}

// providerCalls are how many times each of Karpenter's controllers has called each method of the
// provider ("nodeclaim.lifecycle/Get"), from the operator's metrics: which of them make the reads.
func providerCalls(t *testing.T, op *operator) map[string]float64 {
	t.Helper()
	return scrape(t, op.metricsURL(), func(name string, labels map[string]string) string {
		if name != "karpenter_cloudprovider_duration_seconds_count" {
			return ""
		}
		return labels["controller"] + "/" + labels["method"]
	})
}

// callsSince are the calls made between the counts before and after, most first.
func callsSince(before, after map[string]float64) string {
	var keys []string
	for k, n := range after {
		if n > before[k] {
			keys = append(keys, k)
		}
	}
	delta := func(k string) int { return int(after[k] - before[k]) }
	slices.SortFunc(keys, func(a, b string) int {
		if delta(a) != delta(b) {
			return delta(b) - delta(a)
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s=%d", k, delta(k)))
	}
	return strings.Join(out, " ")
}

// tally counts requests by method and path, the ids in the path written as {id}, most first:
// "GET /v2/kubernetes/clusters/{id}/node_pools=12 PUT …=3".
func tally(requests []fakecloud.Request) string {
	counts := map[string]int{}
	for _, r := range requests {
		counts[r.Method+" "+pathShape(r.Path)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return strings.Join(out, " ")
}

// collections are the path segments after which the clouds' APIs put an id.
var collections = []string{"clusters", "node_pools", "nodes", "pools", "instances", "droplets"}

// pathShape is path with each id, the segment after a collection's name, written as {id}.
func pathShape(path string) string {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if slices.Contains(collections, parts[i-1]) && parts[i] != "" {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}
