//go:build e2e

package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
)

// api is a `clusterplane serve` replica the test started, and an editor's token.
type api struct {
	e     *env
	url   string
	token string
	cmd   *exec.Cmd
	ended chan struct{}
	// said is what the replica wrote on standard error, shown when the test fails.
	said   bytes.Buffer
	saidMu sync.Mutex
}

// serveAPI starts `clusterplane serve` on db (a fresh PostgreSQL database's URL, or "" for none
// named: its SQLite file in the test's folder), on the test's clouds and backend, and makes an
// editor's token with `serve token create`.
func (e *env) serveAPI(db string) *api {
	e.t.Helper()
	a := e.startServe(db, "", "--listen", "127.0.0.1:0", "--workers", "2", "--stack-timeout", "5m")
	a.token = e.serveToken(db) // after the start, which makes an SQLite file
	return a
}

// databaseFlag is the flag that names db, or none for "".
func databaseFlag(db string) []string {
	if db == "" {
		return nil
	}
	return []string{"--database-url", db}
}

// serveToken makes an editor's API token in the database, as a user would.
func (e *env) serveToken(db string) string {
	e.t.Helper()
	r, code := e.clusterplane(append(append([]string{"serve", "token", "create"}, databaseFlag(db)...), "--name", "e2e", "--role", "editor")...)
	if code != 0 {
		e.t.Fatalf("serve token create = %d: %s", code, r)
	}
	return strings.TrimSpace(r.stdout)
}

// startServe starts a replica on db in a process group of its own (so that a test can kill it
// with its engines), and returns it once it listens, or at once when it serves no API.
func (e *env) startServe(db, token string, args ...string) *api {
	e.t.Helper()
	if e.serveWith != "" {
		return e.startServeOf(e.serveWith, db, token, args...)
	}
	return e.startServeOf(filepath.Join(binaries(e.t), "clusterplane"), db, token, args...)
}

// startServeOf is startServe with the clusterplane binary bin (another version's).
func (e *env) startServeOf(bin, db, token string, args ...string) *api {
	e.t.Helper()
	cmd := exec.Command(bin, append(append([]string{"serve"}, databaseFlag(db)...), args...)...)
	cmd.Dir, cmd.Env = e.dir, e.vars
	a, listening := e.runServe(cmd, token, os.Interrupt)
	if slices.Contains(args, "--listen") && args[slices.Index(args, "--listen")+1] == "" {
		return a
	}
	a.url = a.listened(listening)
	return a
}

// runServe starts cmd, a serve replica, in a process group of its own, so that a test can kill
// it with its engines. What it writes to stderr goes to the test's log and to a.said; when the
// test ends it gets stop, and SIGKILL a minute later. listening gets the address serve names
// once it listens.
func (e *env) runServe(cmd *exec.Cmd, token string, stop os.Signal) (a *api, listening <-chan string) {
	e.t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	a = &api{e: e, token: token, cmd: cmd, ended: make(chan struct{})}
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("%s said:\n%s", strings.Join(cmd.Args, " "), a.saidSoFar())
		}
		_ = cmd.Process.Signal(stop)
		select {
		case <-a.ended:
		case <-time.After(time.Minute):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			e.log(lines.Text())
			a.saidMu.Lock()
			a.said.WriteString(lines.Text() + "\n")
			a.saidMu.Unlock()
			if _, at, ok := strings.Cut(lines.Text(), "the API is at "); ok {
				addr <- strings.TrimSpace(at)
			}
		}
		_ = cmd.Wait()
		close(a.ended)
	}()
	return a, addr
}

// listened returns the address serve named once it listened, and fails the test when serve
// ends first or takes over 2 minutes.
func (a *api) listened(listening <-chan string) string {
	a.e.t.Helper()
	select {
	case addr := <-listening:
		return addr
	case <-a.ended:
		a.e.t.Fatalf("serve ended before it listened:\n%s", a.saidSoFar())
	case <-time.After(2 * time.Minute):
		a.e.t.Fatal("serve did not listen within 2 minutes")
	}
	return ""
}

// saidSoFar is what the replica has written to stderr up to now.
func (a *api) saidSoFar() string {
	a.saidMu.Lock()
	defer a.saidMu.Unlock()
	return a.said.String()
}

// kill ends the replica and its engines at once, as a lost machine would.
func (a *api) kill() {
	a.e.t.Helper()
	if err := syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		a.e.t.Fatalf("kill the replica's process group: %v", err)
	}
	<-a.ended
}

func (a *api) call(method, path, body string, headers ...string) (int, map[string]any) {
	a.e.t.Helper()
	req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
	if err != nil {
		a.e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a.e.log(string(data))
	var out map[string]any
	if len(bytes.TrimSpace(data)) > 0 {
		_ = json.Unmarshal(data, &out)
	}
	return resp.StatusCode, out
}

// deleteAndWait deletes path's object, If-Match the version it has now, and waits until the API
// has destroyed its stack and forgotten it.
func (a *api) deleteAndWait(path string) {
	a.e.t.Helper()
	_, now := a.call("GET", path, "")
	if code, out := a.call("DELETE", path, "", "If-Match", fmt.Sprint(now["resource_version"])); code != 202 {
		a.e.t.Fatalf("delete %s: %d %v", path, code, out)
	}
	deadline := time.Now().Add(4 * time.Minute)
	for code, _ := a.call("GET", path, ""); code != 404; code, _ = a.call("GET", path, "") {
		if time.Now().After(deadline) {
			a.e.t.Fatalf("%s was never deleted", path)
		}
		time.Sleep(time.Second)
	}
}

// waitStatus polls path's status until its clusterplane controller has seen the object's
// generation with Ready as want, and returns that status.
func (a *api) waitStatus(path, want string) map[string]any {
	a.e.t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	var last map[string]any
	for time.Now().Before(deadline) {
		_, obj := a.call("GET", path, "")
		_, st := a.call("GET", path+"/status", "")
		last = st
		items, _ := st["controller_status"].([]any)
		for _, it := range items {
			cs, _ := it.(map[string]any)
			if cs["observed_generation"] != obj["generation"] {
				continue
			}
			conds, _ := cs["conditions"].([]any)
			for _, c := range conds {
				cond, _ := c.(map[string]any)
				if cond["type"] == "Ready" && cond["status"] == want {
					return cond
				}
			}
		}
		time.Sleep(time.Second)
	}
	a.e.t.Fatalf("%s never reached Ready=%s for its generation: %v", path, want, last)
	return nil
}

// Through the API, on the real engine and the real DigitalOcean plugin: a cluster and a pool are
// created and reach Ready for their generation, the pool is scaled in the cloud, deleted, and a
// protected cluster's replacement ends Refused with the reason, its delete refused.
// Promise: e2e-serve-on-the-real-engine
func TestTheAPICreatesScalesAndDeletesThroughThePipelineOnTheRealEngine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.serveAPI(pgtest.Start(t).Database("serve"))
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "api-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	cluster := "/api/v1/clusters/" + c["id"].(string)
	a.waitStatus(cluster, "True")
	if _, ok := e.do.ClusterNamed("api-fra1"); !ok {
		t.Fatal("Ready, yet DigitalOcean has no cluster api-fra1")
	}

	pool := func(nodes int) string {
		return fmt.Sprintf(`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": %d}}`, nodes)
	}
	code, p := a.call("POST", cluster+"/nodepools", pool(2))
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	path := "/api/v1/nodepools/" + p["id"].(string)
	a.waitStatus(path, "True")
	code, scaled := a.call("PUT", path, pool(3), "If-Match", p["resource_version"].(string))
	if code != 200 || scaled["generation"] != float64(2) {
		t.Fatalf("scale: %d %v", code, scaled)
	}
	a.waitStatus(path, "True")
	if got := e.doPool(e.doCluster("api-fra1").ID, "workers").Count; got != 3 {
		t.Errorf("after the scale the cloud's pool has %d nodes, want 3", got)
	}
	// After each deploy the worker compares the stack with the cloud, and reads what it holds.
	_, st := a.call("GET", path+"/status", "")
	items, _ := st["controller_status"].([]any)
	cs, _ := items[0].(map[string]any)
	md, _ := cs["metadata"].(map[string]any)
	if cost, _ := md["monthly_cost"].(map[string]any); md["active_nodes"] != float64(3) || cost["min"] != cost["max"] || cost["min"] == float64(0) || cost["source"] == nil {
		t.Errorf("after the scale to 3: metadata %v, want active_nodes 3 and a monthly_cost", md)
	}
	if !strings.Contains(fmt.Sprint(cs["conditions"]), "reason:InSync status:False type:Drifted") {
		t.Errorf("after the scale, Drifted is not False, InSync: %v", cs["conditions"])
	}

	a.deleteAndWait(path)
	if _, ok := e.do.PoolNamed(e.doCluster("api-fra1").ID, "workers"); ok {
		t.Error("the API forgot the pool, and DigitalOcean still has it")
	}

	_, now := a.call("GET", cluster, "")
	if code, out := a.call("DELETE", cluster, "", "If-Match", now["resource_version"].(string)); code != 409 || !strings.Contains(fmt.Sprint(out), "protected") {
		t.Errorf("delete of a protected cluster: %d %v, want 409 saying it is protected", code, out)
	}
	moved := `{"name": "api-fra1", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"region": "ams3",
		"kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`
	if code, out := a.call("PUT", cluster, moved, "If-Match", now["resource_version"].(string)); code != 200 {
		t.Fatalf("move the cluster: %d %v", code, out)
	}
	refused := a.waitStatus(cluster, "False")
	if refused["reason"] != "Refused" || !strings.Contains(fmt.Sprint(refused["message"]), "region") {
		t.Errorf("a protected cluster's replacement: %v, want reason Refused naming region", refused)
	}
	if got := e.doCluster("api-fra1").RegionSlug; got != "fra1" {
		t.Errorf("the refused replacement reached the cloud: region %s", got)
	}
}

// Two replicas on one database, with the default flags: the one whose worker is creating a pool
// is killed with its engines (kill -9) while the cloud holds the pool half made, and another
// worker replica is started. The job's lease runs out, a replica's rescuer gives the job back,
// and the new worker removes the lock the dead engine left, records the pool the cloud holds
// instead of creating a second, and the pool ends Ready for its generation.
func TestAWorkerKilledMidCreateHasItsJobTakenUpAndThePoolIsCreatedOnce(t *testing.T) {
	t.Parallel()
	killMidCreate(t, "kill-fra1", false)
}

// The same with one replica, the API and the workers, killed and started again with the default
// flags: the job is taken up by the replica restarted, and the pool ends Ready.
// Promise: e2e-serve-on-the-real-engine
func TestAReplicaKilledMidCreateAndRestartedTakesItsJobUpAndThePoolIsCreatedOnce(t *testing.T) {
	t.Parallel()
	killMidCreate(t, "restart-fra1", true)
}

// killMidCreate kills the replica whose worker creates a pool in cluster name, in the cloud's
// middle, then starts a worker replica again: alone when alone (the API and its workers in one,
// restarted), else beside a replica that serves the API only.
func killMidCreate(t *testing.T, name string, alone bool) {
	h := holdCreate(t, name, alone)
	h.doomed.kill()
	killed := time.Now()
	h.e.do.SetHold(false)
	if alone {
		h.front = h.e.startServe(h.db, h.token, "--listen", "127.0.0.1:0", "--workers", "1")
	} else {
		h.e.startServe(h.db, h.token, "--listen", "", "--workers", "1")
	}
	for {
		_, obj := h.front.call("GET", h.pool, "")
		_, st := h.front.call("GET", h.pool+"/status", "")
		if ready(st, obj["generation"]) {
			break
		}
		if time.Since(killed) > takeUpGuard {
			t.Fatalf("the pool was not Ready within %s of its worker's kill: %v", takeUpGuard, st)
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("the pool was Ready %s after its worker's kill", time.Since(killed).Round(time.Second))
	h.createdOnce()
}

// heldCreate is a pool's create held in the cloud's middle, its replica about to be stopped.
type heldCreate struct {
	e         *env
	db, token string
	// front serves the API; doomed runs the worker creating the pool (the same replica when
	// alone).
	front, doomed *api
	cluster       string // the cluster's name
	pool          string // the pool's path in the API
}

// holdCreate starts a worker replica with flags added (alone, one that serves the API too; else
// beside a replica that serves the API alone), creates cluster name through the API, and asks it
// for a pool "workers", whose create the cloud then holds: holdCreate returns once the create
// has reached the cloud.
func holdCreate(t *testing.T, name string, alone bool, flags ...string) *heldCreate {
	return holdCreateIn(newEnv(t), pgtest.Start(t).Database("serve"), name, alone, flags...)
}

// holdCreateIn is holdCreate in env e, on serve's database db.
func holdCreateIn(e *env, db, name string, alone bool, flags ...string) *heldCreate {
	t := e.t
	h := &heldCreate{e: e, db: db, cluster: name}
	h.token = e.serveToken(h.db)
	if alone {
		h.doomed = e.startServe(h.db, h.token, append([]string{"--listen", "127.0.0.1:0", "--workers", "1"}, flags...)...)
		h.front = h.doomed
	} else {
		h.front = e.startServe(h.db, h.token, "--listen", "127.0.0.1:0", "--workers", "0") // the API alone
		h.doomed = e.startServe(h.db, h.token, append([]string{"--listen", "", "--workers", "1"}, flags...)...)
	}
	code, c := h.front.call("POST", "/api/v1/clusters", `{"name": "`+name+`", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	h.front.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	clusterID := e.doCluster(name).ID

	e.do.SetHold(true)
	code, p := h.front.call("POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools",
		`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": 2}}`)
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	h.pool = "/api/v1/nodepools/" + p["id"].(string)
	waitFor(t, 3*time.Minute, "the pool's create reached the cloud", func() bool { _, ok := e.do.PoolNamed(clusterID, "workers"); return ok })
	return h
}

// createdOnce fails the test unless the cloud holds exactly one pool named workers.
func (h *heldCreate) createdOnce() {
	h.e.t.Helper()
	pools := 0
	for _, pool := range h.e.doCluster(h.cluster).NodePools {
		if pool.Name == "workers" {
			pools++
		}
	}
	if pools != 1 {
		h.e.t.Errorf("the cloud holds %d pools named workers, want exactly 1", pools)
	}
}

// takeUpGuard bounds the wait for a killed worker's job to end Ready. It stops a hang, and measures
// nothing: the lease runs out (reconcile.LeaseTTL, 40 s), a rescuer gives the job back, and the
// new attempt runs up, takes the stack over and runs up and status again, engine runs that took
// over two minutes in all under -parallel 8 on two cores.
const takeUpGuard = 8 * time.Minute

// ready tells whether the status says Ready=True for the generation.
func ready(st map[string]any, generation any) bool {
	statuses, _ := st["controller_status"].([]any)
	for _, s := range statuses {
		cs, _ := s.(map[string]any)
		if cs["observed_generation"] != generation {
			continue
		}
		conditions, _ := cs["conditions"].([]any)
		for _, c := range conditions {
			if c, _ := c.(map[string]any); c["type"] == "Ready" && c["status"] == "True" {
				return true
			}
		}
	}
	return false
}

// With no database named (serve's SQLite file), through the API on the real engine and the real
// Civo plugin: a Civo cluster and a pool in it reach Ready for their generation, the pool is
// scaled in the cloud, then deleted from it.
// Promise: e2e-serve-on-the-real-engine
func TestTheAPIOnItsSQLiteFileCreatesScalesAndDeletesACivoPool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.serveAPI("")
	code, c := a.call("POST", "/api/v1/clusters", fmt.Sprintf(`{"name": "api-civo", "spec": {"platform": {"type": "civo",
		"civo": {"region": "fra1", "kubernetesVersion": "1.30.5-k3s1", "clusterType": "k3s", "network": {"value": %q},
		"defaultNodePool": {"size": "g4s.kube.small", "nodeCount": 1}}}}}`, e.civo.DefaultNetworkID("fra1")))
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	cluster := "/api/v1/clusters/" + c["id"].(string)
	a.waitStatus(cluster, "True")
	made, ok := e.civo.ClusterNamed("api-civo")
	if !ok {
		t.Fatal("Ready, yet Civo has no cluster api-civo")
	}
	nodes := func() (int, bool) {
		now, _ := e.civo.Cluster(made.ID)
		for _, p := range now.Pools {
			if p.ID == "workers" {
				return p.Count, true
			}
		}
		return 0, false
	}

	pool := func(n int) string {
		return fmt.Sprintf(`{"name": "workers", "spec": {"platform": {"type": "civo", "civo": {"size": "g4s.kube.small"}}, "nodeCount": %d}}`, n)
	}
	code, p := a.call("POST", cluster+"/nodepools", pool(2))
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	path := "/api/v1/nodepools/" + p["id"].(string)
	a.waitStatus(path, "True")
	if n, ok := nodes(); !ok || n != 2 {
		t.Fatalf("Ready, yet Civo's pool workers has %d nodes (there: %v), want 2", n, ok)
	}
	code, scaled := a.call("PUT", path, pool(3), "If-Match", p["resource_version"].(string))
	if code != 200 || scaled["generation"] != float64(2) {
		t.Fatalf("scale: %d %v", code, scaled)
	}
	a.waitStatus(path, "True")
	if n, _ := nodes(); n != 3 {
		t.Errorf("after the scale the cloud's pool has %d nodes, want 3", n)
	}

	a.deleteAndWait(path)
	if _, ok := nodes(); ok {
		t.Error("the API forgot the pool, and Civo still has it")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "clusterplane-serve.db")); err != nil {
		t.Errorf("serve kept its data elsewhere than its SQLite file in the current folder: %v", err)
	}
}

// Through the API, on the real engine and plugin, the loopback cloud and a real control plane: a
// pool whose rollout asks for rotation is rotated when its size changes (the API refuses a
// replacement, not a rotation). While up runs, its status says Rotating with the phase the
// rotation has recorded; it ends Ready for the new generation, the pool new, of the new size,
// under its name.
// Promise: e2e-serve-on-the-real-engine
func TestTheAPIRotatesAPoolAndItsStatusSaysThePhases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := newKubeCluster(t)
	a := e.serveAPI("")
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "api-rot", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "deletionProtection": false,
		"defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	cluster := "/api/v1/clusters/" + c["id"].(string)
	a.waitStatus(cluster, "True")
	clusterID := e.doCluster("api-rot").ID
	e.do.SetNodes(clusterID, k.nodes())
	e.do.SetKubeconfig(clusterID, k.kubeconfig())

	pool := func(size string) string {
		return fmt.Sprintf(`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": %q,
			"rollout": {"strategy": "ROTATE", "maxSurge": 2, "drainTimeoutMinutes": 1}}}, "nodeCount": 2}}`, size)
	}
	code, p := a.call("POST", cluster+"/nodepools", pool("s-4vcpu-8gb"))
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	path := "/api/v1/nodepools/" + p["id"].(string)
	a.waitStatus(path, "True")
	before := e.doPool(clusterID, "workers")
	sel, _ := drain.PoolSelector("digitalocean", "workers", "")
	waitFor(t, time.Minute, "the pool's 2 nodes registered", func() bool { return len(nodesOf(t, k.clientset(), sel)) == 2 })

	_, now := a.call("GET", path, "")
	if code, out := a.call("PUT", path, pool("s-8vcpu-16gb"), "If-Match", now["resource_version"].(string)); code != 200 {
		t.Fatalf("resize: %d %v", code, out)
	}
	// Watch the status while up runs: each phase seen, as the status said it.
	phases := []string{}
	deadline := time.Now().Add(4 * time.Minute)
	for time.Now().Before(deadline) {
		_, obj := a.call("GET", path, "")
		_, st := a.call("GET", path+"/status", "")
		items, _ := st["controller_status"].([]any)
		cs, _ := items[0].(map[string]any)
		if md, _ := cs["metadata"].(map[string]any); md["rotation"] != nil {
			r, _ := md["rotation"].(map[string]any)
			if phase := fmt.Sprint(r["phase"]); !slices.Contains(phases, phase) {
				phases = append(phases, phase)
			}
			if !strings.Contains(fmt.Sprint(cs["conditions"]), "reason:Rotating status:True type:Progressing") {
				t.Errorf("a rotation's status without Progressing=True, Rotating: %v", cs["conditions"])
			}
		}
		if cs["observed_generation"] == obj["generation"] && strings.Contains(fmt.Sprint(cs["conditions"]), "reason:Deployed status:True type:Ready") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	a.waitStatus(path, "True")
	t.Logf("phases the status said: %v", phases)
	if len(phases) == 0 {
		t.Error("the status never said a rotation's phase while up rotated the pool")
	}
	for _, phase := range phases {
		if !slices.Contains([]string{"started", "surge-created", "surge-ready", "cordoned", "drained", "old-deleted", "done"}, phase) {
			t.Errorf("the status said phase %q, not one of a rotation's", phase)
		}
	}
	after := e.doPool(clusterID, "workers")
	if after.ID == before.ID || after.Size != "s-8vcpu-16gb" {
		t.Errorf("pool workers is %s of %s, want a new pool (not %s) of s-8vcpu-16gb", after.ID, after.Size, before.ID)
	}
	if pools := e.do.Pools(clusterID); len(pools) != 2 {
		t.Errorf("after the rotation the cluster has %d pools, want the default pool and workers", len(pools))
	}
}
