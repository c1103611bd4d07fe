//go:build e2e

package e2e_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	"k8s.io/client-go/kubernetes"
)

// up carries out the rotation a Civo pool's rollout block allows, on the real engine, the
// clusterplane plugin, the loopback Civo cloud and a real control plane. Civo cannot rename a
// pool, so a resize that keeps the name goes to workers-surge and back to a new pool workers,
// draining twice; an up killed in the first drain leaves it to the next up, which finishes both
// hops once the PDB allows evictions, never below its minimum. The stack then holds the new pool,
// and a second up, preview and drift find nothing to do.
func TestUpRotatesACivoPoolThroughASurgePoolAndBackToItsNameUnderAPDB(t *testing.T) {
	t.Parallel()
	start := time.Now()
	rig := newCivoRotationRig(t)
	e, cs, text, seeded := rig.e, rig.cs, rig.text, rig.seeded
	sel := func(pool string) map[string]string {
		s, _ := drain.PoolSelector("civo", "", pool)
		return s
	}

	resized := e.write("resized.yaml", strings.Replace(text, "size: g4s.kube.medium", "size: g4s.kube.large", 1))
	r, code := e.clusterplane("preview", resized)
	out := r.stdout + r.stderr
	if code != 0 || !strings.Contains(out, "rotation pool workers") || !strings.Contains(out, "create workers-surge") ||
		!strings.Contains(out, "delete workers-surge") {
		t.Errorf("preview = %d, want 0 naming both hops of the rotation up carries out: %s", code, r)
	}

	// An up killed in the first hop's drain, which the PDB holds up.
	e.killedMidDrain(resized)
	if pools := civoPoolNames(e, seeded); fmt.Sprint(pools) != "[workers workers-surge]" {
		t.Errorf("after the kill the cluster has pools %v, want workers and workers-surge", pools)
	}

	// The PDB now allows one eviction at a time: the next up finishes both hops.
	setMinAvailable(t, cs, "shop", 3)
	sampler := sampleReady(t, cs, "shop")
	upStart := time.Now()
	r, code = e.clusterplane("up", resized, "--yes")
	if code != 0 {
		t.Fatalf("up after the kill = %d, want 0: %s", code, r)
	}
	took := time.Since(upStart)
	if out := r.stdout + r.stderr; !strings.Contains(out, "second hop") {
		t.Errorf("the up does not show the second hop: %s", r)
	}
	if pools := civoPoolNames(e, seeded); fmt.Sprint(pools) != "[workers]" {
		t.Errorf("after the rotation the cluster has pools %v, want workers alone", pools)
	}
	if p, ok := e.civo.Pool(civoClusterID, "workers"); !ok || p.Size != "g4s.kube.large" || p.Count != 2 {
		t.Errorf("pool workers is %+v (found %v), want 2 × g4s.kube.large", p, ok)
	}
	// The loopback cloud names a pool's nodes after the pool: the new pool's are told by their size.
	large := sel("workers")
	large["node.kubernetes.io/instance-type"] = "g4s.kube.large"
	newNodes := nodesOf(t, cs, large)
	if all := nodesOf(t, cs, sel("workers")); len(newNodes) != 2 || len(all) != 2 {
		t.Errorf("pool workers has nodes %v, of which %v of the new size; want 2, all of it", all, newNodes)
	}
	waitPodsOn(t, cs, "shop", large, "", 4)
	sampler.held(t, 3)

	// Nothing left to do.
	e.rotationSettled(t, resized)
	t.Logf("rotation (both hops) finished by the last up in %s; test %s", took.Round(100*time.Millisecond), time.Since(start).Round(time.Second))
	if r, code := e.clusterplane("destroy", resized, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
}

// civoPoolNames are the ids (names) of the seeded Civo cluster's pools but those seeded with it,
// sorted.
func civoPoolNames(e *env, seeded []civogo.KubernetesPool) []string {
	c, ok := e.civo.Cluster(civoClusterID)
	if !ok {
		e.t.Fatal("the seeded Civo cluster is gone")
	}
	var out []string
	for _, p := range c.Pools {
		if !slices.ContainsFunc(seeded, func(s civogo.KubernetesPool) bool { return s.ID == p.ID }) {
			out = append(out, p.ID)
		}
	}
	sort.Strings(out)
	return out
}

// A Civo pool renamed along with its resize needs one hop: the pool of the new name is created
// next to the old one. A PDB that allows no eviction stops it at its drain timeout with both
// pools; up with the old manifest rolls it back; once the PDB allows evictions, up carries it out
// and the stack holds the pool of the new name, with nothing left to do.
func TestUpRotatesARenamedCivoPoolInOneHopAfterARollBack(t *testing.T) {
	t.Parallel()
	rig := newCivoRotationRig(t)
	e, cs, text, manifest, seeded := rig.e, rig.cs, rig.text, rig.manifest, rig.seeded
	oldSel, _ := drain.PoolSelector("civo", "", "workers")

	renamed := e.write("renamed.yaml", strings.NewReplacer("size: g4s.kube.medium", "size: g4s.kube.large",
		"nodePoolName: workers", "nodePoolName: apps").Replace(text))
	r, code := e.clusterplane("up", renamed, "--yes")
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "both pools are in place") || strings.Contains(r.stdout+r.stderr, "workers-surge") {
		t.Fatalf("up with a PDB that allows nothing = %d, want the one-hop rotation stopped with both pools: %s", code, r)
	}
	if pools := civoPoolNames(e, seeded); fmt.Sprint(pools) != "[apps workers]" {
		t.Errorf("after the stopped drain the cluster has pools %v, want apps and workers", pools)
	}

	// The old manifest rolls it back.
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up with the old manifest = %d, want the rotation rolled back: %s", code, r)
	}
	if pools := civoPoolNames(e, seeded); fmt.Sprint(pools) != "[workers]" {
		t.Errorf("after the roll-back the cluster has pools %v, want workers alone", pools)
	}
	for node, cordoned := range nodesOf(t, cs, oldSel) {
		if cordoned {
			t.Errorf("old node %s is still cordoned after the roll-back", node)
		}
	}
	if r, code := e.clusterplane("preview", manifest); code != 0 || strings.Contains(r.stdout, "replace") {
		t.Errorf("preview after the roll-back = %d, want clean: %s", code, r)
	}

	// The PDB allows one eviction at a time: one hop, to the pool of the new name.
	setMinAvailable(t, cs, "shop", 3)
	sampler := sampleReady(t, cs, "shop")
	if r, code := e.clusterplane("up", renamed, "--yes"); code != 0 || strings.Contains(r.stdout+r.stderr, "second hop") {
		t.Fatalf("up = %d, want 0 in one hop: %s", code, r)
	}
	if pools := civoPoolNames(e, seeded); fmt.Sprint(pools) != "[apps]" {
		t.Errorf("after the rotation the cluster has pools %v, want apps alone", pools)
	}
	if p, ok := e.civo.Pool(civoClusterID, "apps"); !ok || p.Size != "g4s.kube.large" || p.Count != 2 {
		t.Errorf("pool apps is %+v (found %v), want 2 × g4s.kube.large", p, ok)
	}
	newSel, _ := drain.PoolSelector("civo", "", "apps")
	waitPodsOn(t, cs, "shop", newSel, "", 4)
	sampler.held(t, 3)
	e.rotationSettled(t, renamed)
	if r, code := e.clusterplane("destroy", renamed, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
	if pools := civoPoolNames(e, seeded); len(pools) != 0 {
		t.Errorf("after the destroy the cluster has pools %v, want none but its own", pools)
	}
}

// civoRotationRig is what both Civo rotation tests start from: the loopback Civo cluster backed by
// a real control plane, its seeded pool's nodes cordoned so that the workload runs on the
// manifest's pool only, the pool workers of manifest (text: the minimal example, rollout ROTATE, a
// 1-minute drain timeout) deployed with its 2 nodes registered, and the workload "shop" of 4
// replicas under a PDB of minAvailable 4: no eviction is allowed until a test says so. seeded are
// the pools the cluster was seeded with.
type civoRotationRig struct {
	e              *env
	cs             kubernetes.Interface
	text, manifest string
	seeded         []civogo.KubernetesPool
}

func newCivoRotationRig(t *testing.T) civoRotationRig {
	t.Helper()
	e := newEnv(t)
	e.seedExamples()
	k := newKubeCluster(t)
	e.civo.SetNodes(civoClusterID, k.nodes())
	e.civo.SetKubeconfig(civoClusterID, k.kubeconfig())
	cs := k.clientset()
	seeded, _ := e.civo.Cluster(civoClusterID)
	waitFor(t, time.Minute, "the seeded pool's nodes registered", func() bool { return len(nodesOf(t, cs, nil)) > 0 })
	for name := range nodesOf(t, cs, nil) {
		if code, body := k.patch("/api/v1/nodes/"+name, map[string]any{"spec": map[string]any{"unschedulable": true}}); code != 200 {
			t.Fatalf("cordon %s: %d %s", name, code, body)
		}
	}
	text := withSpec(example(t, "civokubernetesnodepool/minimal.yaml"),
		"  rollout:\n    strategy: ROTATE\n    maxSurge: 2\n    drainTimeoutMinutes: 1\n")
	manifest := e.write("pool.yaml", text)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	sel, _ := drain.PoolSelector("civo", "", "workers")
	waitFor(t, time.Minute, "the pool's 2 nodes registered", func() bool { return len(nodesOf(t, cs, sel)) == 2 })
	workload(t, cs, "shop", 4, 4)
	return civoRotationRig{e: e, cs: cs, text: text, manifest: manifest, seeded: seeded.Pools}
}
