//go:build e2e

package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/digitalocean/godo"
	"k8s.io/client-go/kubernetes"
)

// up carries out the rotation of a DigitalOcean cluster's default pool, on the real engine and
// provider, the loopback cloud and a real control plane, and the (protected) cluster is never
// replaced: a PDB that allows no eviction stops the rotation at its drain timeout with both pools
// and the old one still the default pool; the next up, once the PDB allows evictions, finishes
// it, never below the PDB's minimum. The cluster keeps its id; its one pool is new, of the new
// size, under the old name and carrying the tag by which the provider reads the default pool;
// a second up, drift and preview find nothing to do.
// Promise: default-pool-rotation-keeps-cluster
func TestUpRotatesADigitalOceanDefaultPoolAndTheClusterKeepsItsID(t *testing.T) {
	t.Parallel()
	start := time.Now()
	e := newEnv(t)
	k := newKubeCluster(t)
	cs := k.clientset()

	text := strings.Replace(example(t, "digitaloceankubernetescluster/minimal.yaml"), "nodeCount: 2",
		"nodeCount: 2\n    rollout:\n      strategy: ROTATE\n      drainTimeoutMinutes: 1\n      readyTimeoutMinutes: 3", 1)
	manifest := e.write("cluster.yaml", text)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	before := e.doCluster("dev-fra1")
	if len(before.NodePools) != 1 || !slices.Contains(before.NodePools[0].Tags, dofacts.DefaultPoolTag) {
		t.Fatalf("the new cluster's pools: %+v, want one tagged %s", before.NodePools, dofacts.DefaultPoolTag)
	}
	oldPool := *before.NodePools[0]
	e.do.SetNodes(before.ID, k.nodes())
	e.do.SetKubeconfig(before.ID, k.kubeconfig())
	oldSel, _ := drain.PoolSelector("digitalocean", "default", "")
	waitFor(t, time.Minute, "the default pool's 2 nodes registered", func() bool { return len(nodesOf(t, cs, oldSel)) == 2 })
	workload(t, cs, "shop", 4, 4)

	resized := e.write("resized.yaml", strings.Replace(text, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb", 1))
	if r, code := e.clusterplane("diff", manifest, resized); code != 0 || !strings.Contains(r.stdout, dofacts.DefaultPoolTag) {
		t.Errorf("diff = %d, want 0 and the default pool's tag handed over: %s", code, r)
	}
	if r, code := e.clusterplane("preview", resized); code != 0 || !strings.Contains(r.stdout+r.stderr, "rotation pool default") {
		t.Errorf("preview = %d, want 0 naming the rotation up carries out: %s", code, r)
	}

	// 1. The drain times out: both pools stay, the old one cordoned and still the default pool.
	podsBefore := podsOn(t, cs, "shop")
	if r, code := e.clusterplane("up", resized, "--yes"); code == 0 || !strings.Contains(r.stdout+r.stderr, "both pools are in place") {
		t.Fatalf("up with a PDB that allows nothing = %d, want non-zero saying both pools stay: %s", code, r)
	}
	checkTheStoppedRotationLeftBothPools(t, e, cs, before.ID, oldPool.ID, oldSel, podsBefore)

	// 2. The PDB now allows one eviction at a time: the next up finishes the rotation.
	setMinAvailable(t, cs, "shop", 3)
	sampler := sampleReady(t, cs, "shop")
	if r, code := e.clusterplane("up", resized, "--yes"); code != 0 {
		t.Fatalf("up after the stopped drain = %d, want 0: %s", code, r)
	}
	after := e.doCluster("dev-fra1")
	if after.ID != before.ID {
		t.Errorf("the cluster was replaced: %s, was %s", after.ID, before.ID)
	}
	if len(after.NodePools) != 1 {
		t.Fatalf("after the rotation the cluster has pools %v, want one", poolsOf(after))
	}
	pool := after.NodePools[0]
	if pool.ID == oldPool.ID || pool.Name != "default" || pool.Size != "s-4vcpu-8gb" || !slices.Contains(pool.Tags, dofacts.DefaultPoolTag) {
		t.Errorf("the cluster's pool is %s %q of %s tagged %v; want a new pool (not %s) named default of s-4vcpu-8gb tagged %s",
			pool.ID, pool.Name, pool.Size, pool.Tags, oldPool.ID, dofacts.DefaultPoolTag)
	}
	newSel, _ := drain.PoolSelector("digitalocean", "default", "")
	waitPodsOn(t, cs, "shop", newSel, "default-surge", 4)
	sampler.held(t, 3)

	// 3. Nothing left to do, and the stack's outputs name the new pool.
	e.rotationSettled(t, resized)
	if r, code := e.clusterplane("status", resized, "-o", "json"); code != 0 || strings.Contains(r.stdout, "RotationUnderWay") ||
		!strings.Contains(r.stdout, pool.ID) {
		t.Errorf("status after the rotation = %d, want the new pool %s and no rotation under way: %s", code, pool.ID, r)
	}
	if final := e.doCluster("dev-fra1"); final.ID != before.ID || len(final.NodePools) != 1 || final.NodePools[0].ID != pool.ID {
		t.Errorf("after the second up the cluster is %s with pools %v, want %s with the new pool %s", final.ID, poolsOf(final), before.ID, pool.ID)
	}
	t.Logf("default pool rotated in %s", time.Since(start).Round(time.Second))
}

// checkTheStoppedRotationLeftBothPools checks what a rotation stopped at its drain timeout leaves:
// the same cluster with both pools, the old one still the default pool and cordoned, and the
// workload where it was, so that the next up can finish it.
func checkTheStoppedRotationLeftBothPools(t *testing.T, e *env, cs kubernetes.Interface, clusterID, oldPoolID string, oldSel map[string]string, podsBefore map[string]int) {
	t.Helper()
	mid := e.doCluster("dev-fra1")
	if mid.ID != clusterID || fmt.Sprint(poolsOf(mid)) != "[default default-surge]" {
		t.Errorf("after the stopped drain the cluster is %s with pools %v, want %s with default and default-surge", mid.ID, poolsOf(mid), clusterID)
	}
	if old := e.doPool(clusterID, "default"); old.ID != oldPoolID || !slices.Contains(old.Tags, dofacts.DefaultPoolTag) {
		t.Errorf("after the stopped drain the default pool is %s tagged %v, want the old %s still tagged", old.ID, old.Tags, oldPoolID)
	}
	for node, cordoned := range nodesOf(t, cs, oldSel) {
		if !cordoned {
			t.Errorf("old node %s is schedulable after the stopped drain", node)
		}
	}
	if after := podsOn(t, cs, "shop"); fmt.Sprint(after) != fmt.Sprint(podsBefore) {
		t.Errorf("the workload moved: Ready pods by node %v before, %v after", podsBefore, after)
	}
}

// poolsOf are the names of a cluster's pools, sorted.
func poolsOf(c godo.KubernetesCluster) []string {
	var out []string
	for _, p := range c.NodePools {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}
