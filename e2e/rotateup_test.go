//go:build e2e

package e2e_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	"github.com/digitalocean/godo"
	"k8s.io/client-go/kubernetes"
)

// up carries out the rotation a DigitalOcean pool's rollout block allows, on the real engine and
// provider, the loopback cloud and a real control plane: a PDB that allows no eviction stops it
// at its drain timeout with both pools; an up killed mid-drain leaves it to the next up, which
// finishes it once the PDB allows evictions, never below its minimum; the stack then points at
// the new pool, of the new size and the old name, and a second up and drift find nothing to do.
// Promise: up-rotates-before-the-engine
func TestUpRotatesADigitalOceanPoolAndResumesAfterAStoppedDrainAndAKill(t *testing.T) {
	t.Parallel()
	start := time.Now()
	rig := newRotationRig(t)
	e, cs, text, before, oldSel := rig.e, rig.cs, rig.text, rig.before, rig.oldSel

	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	if r, code := e.clusterplane("preview", resized); code != 0 || !strings.Contains(r.stdout+r.stderr, "rotation pool workers") {
		t.Errorf("preview = %d, want 0 naming the rotation up carries out: %s", code, r)
	}

	// 1. The drain times out: both pools stay, the old one cordoned, the workload untouched.
	podsBefore := podsOn(t, cs, "shop")
	e.do.Reset()
	r, code := e.clusterplane("up", resized, "--yes")
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "both pools are in place") || !strings.Contains(r.stdout+r.stderr, "up again resumes") {
		t.Fatalf("up with a PDB that allows nothing = %d, want non-zero saying both pools stay and how to resume: %s", code, r)
	}
	pools := poolNames(e)
	if fmt.Sprint(pools) != "[default workers workers-surge]" {
		t.Errorf("after the stopped drain the cluster has pools %v, want default, workers and workers-surge", pools)
	}
	for node, cordoned := range nodesOf(t, cs, oldSel) {
		if !cordoned {
			t.Errorf("old node %s is schedulable after the stopped drain", node)
		}
	}
	if after := podsOn(t, cs, "shop"); fmt.Sprint(after) != fmt.Sprint(podsBefore) {
		t.Errorf("the workload moved: Ready pods by node %v before, %v after", podsBefore, after)
	}
	if r, code := e.clusterplane("status", resized, "-o", "json"); !strings.Contains(r.stdout, `"RotationUnderWay"`) {
		t.Errorf("status = %d does not name the rotation under way: %s", code, r)
	}

	// 2. An up killed mid-drain.
	e.killedMidDrain(resized)

	// 3. The PDB now allows one eviction at a time: the next up finishes the rotation.
	setMinAvailable(t, cs, "shop", 3)
	sampler := sampleReady(t, cs, "shop")
	stopped := apiCalls(e)
	e.do.Reset()
	upStart := time.Now()
	if r, code := e.clusterplane("up", resized, "--yes"); code != 0 {
		t.Fatalf("up after the kill = %d, want 0: %s", code, r)
	}
	took := time.Since(upStart)
	calls := apiCalls(e)
	after := e.doPool(doClusterID, "workers")
	if after.ID == before.ID || after.Size != "s-8vcpu-16gb" {
		t.Errorf("pool workers is %s of %s, want a new pool (not %s) of s-8vcpu-16gb", after.ID, after.Size, before.ID)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers]" {
		t.Errorf("after the rotation the cluster has pools %v, want default and workers", pools)
	}
	newSel, _ := drain.PoolSelector("digitalocean", "workers", "")
	waitPodsOn(t, cs, "shop", newSel, "", 4)
	sampler.held(t, 3)

	// 4. Nothing left to do.
	e.rotationSettled(t, resized)
	t.Logf("rotation finished by the last up in %s; DigitalOcean API calls of the stopped and the killed ups: %s; "+
		"of the last up: %s; test %s", took.Round(100*time.Millisecond), stopped, calls, time.Since(start).Round(time.Second))
	if r, code := e.clusterplane("destroy", resized, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
}

// rotationSettled: after a rotation, a second up replaces nothing, and drift and preview find
// nothing to do (no rotation left, nothing replaced).
func (e *env) rotationSettled(t *testing.T, file string) {
	t.Helper()
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 || strings.Contains(r.stdout, "replace") {
		t.Errorf("a second up = %d, want 0 and nothing replaced: %s", code, r)
	}
	if r, code := e.clusterplane("drift", file); code != 0 {
		t.Errorf("drift after the rotation = %d, want 0: %s", code, r)
	}
	if r, code := e.clusterplane("preview", file); code != 0 || strings.Contains(r.stdout, "rotation") || strings.Contains(r.stdout, "replace") {
		t.Errorf("preview after the rotation = %d, want 0, no rotation and nothing replaced: %s", code, r)
	}
}

// poolNames are the names of the pools of the seeded cluster, sorted.
func poolNames(e *env) []string {
	var out []string
	for _, p := range e.do.Pools(doClusterID) {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// apiCalls counts the loopback DigitalOcean API's requests since its last Reset, by method.
func apiCalls(e *env) string {
	var parts []string
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		parts = append(parts, fmt.Sprintf("%s %d", m, len(e.do.Requests(m))))
	}
	return strings.Join(parts, ", ")
}

// killedMidDrain starts `clusterplane up FILE --yes` and kills its process group with SIGKILL
// once it says it drains a node.
func (e *env) killedMidDrain(file string) {
	e.t.Helper()
	e.killedWhen(file, "it drained", func(out string) bool { return strings.Contains(out, "draining node") }, 2*time.Second)
}

// killedWhen starts `clusterplane up FILE --yes` and kills its process group with SIGKILL, after
// linger, once reached says (from the up's output so far, or the cloud) that the up got where
// the test waits for it; what names that place in the test's failure.
func (e *env) killedWhen(file, what string, reached func(out string) bool, linger time.Duration) {
	e.t.Helper()
	e.killedDuring([]string{"up", file, "--yes"}, what, reached, linger)
}

// killedDuring is killedWhen of any clusterplane command line args.
func (e *env) killedDuring(args []string, what string, reached func(out string) bool, linger time.Duration) {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(binaries(e.t), "clusterplane"), args...)
	cmd.Dir = e.dir
	cmd.Env = e.vars
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	defer func() { e.log(out.String()) }()
	for deadline := time.Now().Add(3 * time.Minute); !reached(out.String()); {
		select {
		case <-ended:
			e.t.Fatalf("clusterplane %s ended (%v) before %s:\n%s", args[0], cmd.ProcessState, what, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-ended
			e.t.Fatalf("not %s 3 minutes into clusterplane %s:\n%s", what, args[0], out.String())
		}
	}
	time.Sleep(linger)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		e.t.Fatalf("kill clusterplane %s's process group: %v", args[0], err)
	}
	<-ended
	if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !status.Signaled() {
		e.t.Fatalf("clusterplane %s ended before it was killed (%v):\n%s", args[0], cmd.ProcessState, out.String())
	}
}

// syncBuffer is a buffer a command writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestUpWithTheOldManifestRollsBackARotationStoppedAtItsDrain(t *testing.T) {
	t.Parallel()
	rig := newRotationRig(t)
	e, cs, text, manifest, before, oldSel := rig.e, rig.cs, rig.text, rig.manifest, rig.before, rig.oldSel

	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	if r, code := e.clusterplane("up", resized, "--yes"); code == 0 || !strings.Contains(r.stdout+r.stderr, "both pools are in place") {
		t.Fatalf("up with a PDB that allows nothing = %d, want the rotation stopped: %s", code, r)
	}

	// The manifest goes back to the old size: up gives the rotation up and deploys it, and says
	// so in its report even with --quiet, which prints no progress lines.
	if r, code := e.clusterplane("up", manifest, "--yes", "--quiet"); code != 0 || !strings.Contains(r.stdout, "rotation of pool workers rolled back") {
		t.Fatalf("up --quiet with the old manifest after a stopped rotation = %d, want it rolled back and said: %s", code, r)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers]" {
		t.Errorf("after the roll-back the cluster has pools %v, want default and workers", pools)
	}
	if after := e.doPool(doClusterID, "workers"); after.ID != before.ID || after.Size != before.Size {
		t.Errorf("the pool after the roll-back is %s %s, want the old %s %s", after.ID, after.Size, before.ID, before.Size)
	}
	for node, cordoned := range nodesOf(t, cs, oldSel) {
		if cordoned {
			t.Errorf("old node %s is still cordoned after the roll-back", node)
		}
	}
	if r, code := e.clusterplane("status", manifest, "-o", "json"); code != 0 || strings.Contains(r.stdout, "RotationUnderWay") {
		t.Errorf("status after the roll-back = %d, want no rotation under way: %s", code, r)
	}
	if r, code := e.clusterplane("preview", manifest); code != 0 || strings.Contains(r.stdout, "replace") {
		t.Errorf("preview after the roll-back = %d, want clean: %s", code, r)
	}
}

// rotationRig is what both rotation tests start from: the loopback DigitalOcean cluster backed by
// a real control plane, the pool of manifest (text, rollout ROTATE, a 1-minute drain timeout)
// deployed as before, its 2 nodes registered (oldSel), the seeded default pool's node cordoned so
// that the workload runs on the pool only, and the workload "shop" of 4 replicas under a PDB of
// minAvailable 4: no eviction is allowed until a test says so.
type rotationRig struct {
	e              *env
	cs             kubernetes.Interface
	text, manifest string
	before         godo.KubernetesNodePool
	oldSel         map[string]string
}

func newRotationRig(t *testing.T) rotationRig {
	t.Helper()
	e := newEnv(t)
	e.seedExamples()
	k := newKubeCluster(t)
	e.do.SetNodes(doClusterID, k.nodes())
	e.do.SetKubeconfig(doClusterID, k.kubeconfig())
	cs := k.clientset()

	text := withSpec(example(t, "digitaloceankubernetesnodepool/minimal.yaml"),
		"  rollout:\n    strategy: ROTATE\n    maxSurge: 2\n    drainTimeoutMinutes: 1\n")
	manifest := e.write("pool.yaml", text)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	before := e.doPool(doClusterID, "workers")
	defaultSel, _ := drain.PoolSelector("digitalocean", "default", "")
	for name := range nodesOf(t, cs, defaultSel) {
		if code, body := k.patch("/api/v1/nodes/"+name, map[string]any{"spec": map[string]any{"unschedulable": true}}); code != 200 {
			t.Fatalf("cordon %s: %d %s", name, code, body)
		}
	}
	oldSel, _ := drain.PoolSelector("digitalocean", "workers", "")
	waitFor(t, time.Minute, "the pool's 2 nodes registered", func() bool { return len(nodesOf(t, cs, oldSel)) == 2 })
	workload(t, cs, "shop", 4, 4)
	return rotationRig{e: e, cs: cs, text: text, manifest: manifest, before: before, oldSel: oldSel}
}
