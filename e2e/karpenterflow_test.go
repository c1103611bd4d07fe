//go:build e2e

package e2e_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// karpenterClouds set up each loopback cloud for the provider, in the order the scenarios run.
var karpenterClouds = []struct {
	name  string
	setup func(*testing.T, *kube) *karpenterCloud
}{{"DigitalOcean", doForKarpenter}, {"Civo", civoForKarpenter}}

// The seed's flow on each cloud, on the real control plane with Karpenter core and the provider's
// operator running: 10 pending pods get nodes in few cloud requests and the pools hold exactly
// the NodeClaims' nodes; scaled to zero, consolidation removes them, the pools follow and go, and
// the declared pool is untouched; a NodeClass change replaces its drifted nodes.
func TestKarpenterGrowsAndShrinksTheCloudsManagedPools(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	for _, cloud := range karpenterClouds {
		t.Run(cloud.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			k := newKubeCluster(t)
			c := cloud.setup(t, k)
			karpenterOn(t, k, c)
			cs := k.clientset()
			c.reset()

			pendingPods(t, cs, "shop", 10, "1", "1Gi")
			waitFor(t, 5*time.Minute, "10 pods running", func() bool { return runningPods(t, cs, "shop") == 10 })
			claims := k.nodeClaims()
			waitFor(t, time.Minute, "the pools holding exactly the NodeClaims' nodes", func() bool {
				_, ids := c.karpenterPools()
				return slices.Equal(ids, claimedProviderIDs(k.nodeClaims()))
			})
			everyClaimNamesItsNode(t, k, cs, c)
			cheapestOfTheirCandidates(t, c, claims)
			if writes := c.writes(); len(claims) > 1 && len(writes) >= len(claims) {
				t.Errorf("%d pool writes for %d nodes: the creates were not batched: %v", len(writes), len(claims), writes)
			}
			pools, _ := c.karpenterPools()
			t.Logf("%s: 10 pods on %d nodes in %d pools, %d pool writes, %s after the start",
				c.name, len(claims), len(pools), len(c.writes()), time.Since(start).Round(100*time.Millisecond))
			c.declaredUntouched(t)
			deleteExactlyItsNode(t, k, cs, c)

			// Scaled to 3 first: consolidation removes some nodes and keeps others, and once it
			// rests the pools hold exactly the nodes of the NodeClaims it kept (scaled to 0, every
			// node goes, which would hide a delete that took the wrong one).
			scale(t, cs, "shop", 3)
			waitFor(t, 3*time.Minute, "consolidation down to the nodes 3 pods need", func() bool {
				now := k.nodeClaims()
				_, ids := c.karpenterPools()
				return len(now) < len(claims) && !slices.ContainsFunc(now, func(cl nodeClaim) bool { return cl.Deleting }) &&
					runningPods(t, cs, "shop") == 3 && slices.Equal(ids, claimedProviderIDs(now))
			})

			scale(t, cs, "shop", 0)
			waitFor(t, 3*time.Minute, "every NodeClaim consolidated away", func() bool { return len(k.nodeClaims()) == 0 })
			waitFor(t, time.Minute, "the provider's pools deleted", func() bool {
				pools, _ := c.karpenterPools()
				return len(pools) == 0
			})
			c.declaredUntouched(t)

			driftReplaces(t, k, cs, c)
			t.Logf("%s: the flow took %s; memory %s", c.name, time.Since(start).Round(100*time.Millisecond), k.memory())
		})
	}
}

// With the NodeClass's default, every size, 10 pending CPU-only pods get nodes of the cheapest
// sizes that fit them and no GPU size, though the loopback DigitalOcean prices its GPU sizes at
// the fake's $10 and only they fit all 10 pods on one node (Karpenter launched gpu-h100x1-80gb for
// them while the default selected the GPU sizes).
func TestKarpenterGivesCPUPodsNoGPUSizeUnderTheDefaultNodeClass(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	k := newKubeCluster(t)
	c := doForKarpenter(t, k)
	c.sizes = nil
	karpenterOn(t, k, c)
	cs := k.clientset()
	pendingPods(t, cs, "shop", 10, "1", "1Gi")
	waitFor(t, 5*time.Minute, "10 pods running", func() bool { return runningPods(t, cs, "shop") == 10 })
	claims := k.nodeClaims()
	for _, cl := range claims {
		if strings.HasPrefix(cl.InstanceType, "gpu-") {
			t.Errorf("NodeClaim %s launched the GPU size %s for CPU-only pods (candidates %q)", cl.Name, cl.InstanceType, cl.Candidates)
		}
	}
	cheapestOfTheirCandidates(t, c, claims)
	c.declaredUntouched(t)
}

// driftReplaces scales the workload to 3, changes the NodeClass's labels, and waits until every
// node it had is replaced by one with the new label, the pods running again.
func driftReplaces(t *testing.T, k *kube, cs kubernetes.Interface, c *karpenterCloud) {
	t.Helper()
	scale(t, cs, "shop", 3)
	waitFor(t, 5*time.Minute, "3 pods running", func() bool { return runningPods(t, cs, "shop") == 3 })
	var old []string
	for _, cl := range k.nodeClaims() {
		old = append(old, cl.Name)
	}
	k.patch("/apis/karpenter.clusterplane.dev/v1/"+c.plural+"/default", map[string]any{"spec": map[string]any{"labels": map[string]any{"team": "new"}}})
	waitFor(t, 5*time.Minute, "the drifted nodes replaced", func() bool {
		claims := k.nodeClaims()
		for _, cl := range claims {
			if slices.Contains(old, cl.Name) {
				return false
			}
		}
		return len(claims) > 0 && runningPods(t, cs, "shop") == 3
	})
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "karpenter.sh/nodepool=default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.DeletionTimestamp == nil && n.Labels["team"] != "new" {
			t.Errorf("%s: node %s has no team=new label after the drift: %v", c.name, n.Name, n.Labels)
		}
	}
	_, ids := c.karpenterPools()
	if claimed := claimedProviderIDs(k.nodeClaims()); !slices.Equal(ids, claimed) {
		t.Errorf("%s: after the drift the pools hold %q, the NodeClaims name %q", c.name, ids, claimed)
	}
}

// cheapestOfTheirCandidates fails the test unless each NodeClaim's node has the cheapest of the
// sizes Karpenter found its pods fit on, at the cloud's prices.
func cheapestOfTheirCandidates(t *testing.T, c *karpenterCloud, claims []nodeClaim) {
	t.Helper()
	prices := c.prices.Sizes
	for _, cl := range claims {
		price, ok := prices[cl.InstanceType]
		if !ok || len(cl.Candidates) == 0 {
			t.Errorf("%s: NodeClaim %s has size %q (priced: %v) and candidates %q", c.name, cl.Name, cl.InstanceType, ok, cl.Candidates)
			continue
		}
		for _, other := range cl.Candidates {
			if p, ok := prices[other]; ok && p < price {
				t.Errorf("%s: NodeClaim %s launched %s at %.2f a month, but %s fits at %.2f", c.name, cl.Name, cl.InstanceType, price, other, p)
			}
		}
	}
}

// everyClaimNamesItsNode waits until every NodeClaim is initialized on the Node of its
// providerID: Karpenter found the Node the cloud's node registered as, not just any Node the
// pods could land on.
func everyClaimNamesItsNode(t *testing.T, k *kube, cs kubernetes.Interface, c *karpenterCloud) {
	t.Helper()
	waitFor(t, 2*time.Minute, c.name+": every NodeClaim initialized on the Node of its providerID", func() bool {
		nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		byProviderID := map[string]string{}
		for _, n := range nodes.Items {
			byProviderID[n.Spec.ProviderID] = n.Name
		}
		claims := k.nodeClaims()
		for _, cl := range claims {
			if !cl.Initialized || cl.NodeName == "" || byProviderID[cl.ProviderID] != cl.NodeName {
				return false
			}
		}
		return len(claims) > 0
	})
}

// deleteExactlyItsNode deletes the NodeClaim of the first node of a pool that has several, as
// `kubectl delete nodeclaim` does: the provider must delete that node and leave the pool's others,
// where a delete that only lowered the pool's count would let the cloud take its last node. Karpenter
// then makes a node for the pods it evicted.
func deleteExactlyItsNode(t *testing.T, k *kube, cs kubernetes.Interface, c *karpenterCloud) {
	t.Helper()
	claims := k.nodeClaims()
	pools, _ := c.karpenterPools()
	i := slices.IndexFunc(pools, func(p cloudPool) bool { return len(p.providerIDs) > 1 })
	if i < 0 {
		t.Fatalf("%s: no pool of the provider's has two nodes: %+v", c.name, pools)
	}
	first := pools[i].inOrder[0]
	j := slices.IndexFunc(claims, func(cl nodeClaim) bool { return cl.ProviderID == first })
	if j < 0 {
		t.Fatalf("%s: no NodeClaim names %s", c.name, first)
	}
	k.must("DELETE", "/apis/karpenter.sh/v1/nodeclaims/"+claims[j].Name, nil)
	waitFor(t, 2*time.Minute, c.name+": the deleted NodeClaim's node gone from its pool", func() bool {
		_, ids := c.karpenterPools()
		return !slices.Contains(ids, first)
	})
	_, ids := c.karpenterPools()
	for _, cl := range claims {
		if cl.ProviderID != first && !slices.Contains(ids, cl.ProviderID) {
			t.Errorf("%s: deleting NodeClaim %s (%s) took node %s of NodeClaim %s too", c.name, claims[j].Name, first, cl.ProviderID, cl.Name)
		}
	}
	waitFor(t, 5*time.Minute, "10 pods running again", func() bool { return runningPods(t, cs, "shop") == 10 })
}
