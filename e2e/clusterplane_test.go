//go:build e2e

package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/digitalocean/godo"
)

// Promise: preview-exit-codes
// Promise: destroy-refuses-protected-cluster
func TestClusterplaneDeploysAManifestShowsItReadyPrintsItsKubeconfigAndRefusesWhatIsUnsafe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("minimal.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	st := e.status(manifest)
	if st.Stack != "digitaloceankubernetescluster/dev-fra1" || len(st.Conditions) == 0 || st.Conditions[0].Status != "True" {
		t.Errorf("status %+v, want the stack name docs/deploying.md gives and Ready", st)
	}
	if _, ok := st.Outputs["kubeconfig"]; ok || st.Outputs["cluster_id"] == nil {
		t.Errorf("status outputs %v: want cluster_id and no secret", st.Outputs)
	}
	if r, code := e.clusterplane("kubeconfig", manifest); code != 0 || !strings.Contains(r.stdout, "kind: Config") {
		t.Errorf("kubeconfig = %d: %s", code, r)
	}
	// A scale previews as an update whose outputs all stay: none reads as gone. The count's change
	// is said under the table (the engine's own lines fold the recorded manifest that held it).
	scaled := e.write("scaled.yaml", strings.Replace(example(t, "digitaloceankubernetescluster/minimal.yaml"), "nodeCount: 2", "nodeCount: 3", 1))
	if r, code := e.clusterplane("preview", scaled); code != 0 || !strings.Contains(r.stdout, "update spec.defaultNodePool.nodeCount: 2 → 3") ||
		!strings.Contains(r.stderr, "digitalocean:index:KubernetesCluster dev-fra1 update [diff: ~nodePool]") ||
		strings.Contains(r.stderr, "- default_node_pool_id") || strings.Contains(r.stderr, "- cluster_id") {
		t.Errorf("preview of a scale = %d, want the count's change and no output going away: %s", code, r)
	}
	moved := e.write("moved.yaml", strings.Replace(example(t, "digitaloceankubernetescluster/minimal.yaml"), "region: fra1", "region: ams3", 1))
	if r, code := e.clusterplane("preview", moved); code != 3 {
		t.Errorf("preview of a replacing change of a protected cluster = %d, want 3: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", manifest, "--yes"); code != 3 || !strings.Contains(r.stdout+r.stderr, "protected") {
		t.Errorf("destroy of a protected cluster = %d, want 3 saying it is protected: %s", code, r)
	}
	unprotected := e.write("unprotected.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if r, code := e.clusterplane("up", unprotected, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", unprotected, "--yes"); code != 0 {
		t.Errorf("destroy once unprotected = %d: %s", code, r)
	}
	e.assertNoWorkspaces()
}

func TestClusterplaneSaysWhatIsMissingBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("minimal.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	e.vars = append(e.vars, "PULUMI_CONFIG_PASSPHRASE=")
	if r, code := e.clusterplane("preview", manifest); code != 1 || !strings.Contains(r.stderr, "PULUMI_CONFIG_PASSPHRASE") {
		t.Errorf("preview without a passphrase = %d: %s", code, r)
	}
	e.vars = append(e.vars, "PATH=/nonexistent", "PULUMI_CONFIG_PASSPHRASE=x")
	if r, code := e.clusterplane("preview", manifest); code != 1 || !strings.Contains(r.stderr, "Pulumi CLI is not on PATH") ||
		!strings.Contains(r.stderr, "`clusterplane sandbox -- clusterplane up FILE`") {
		t.Errorf("preview without the Pulumi CLI = %d, want 1 naming the CLI and the sandbox: %s", code, r)
	}
}

func TestClusterplaneDriftTellsTheCloudsOwnDriftFromAConsoleEditAndRefreshRecordsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"),
		"  autoUpgrade: true\n  deletionProtection: false\n"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	if r, code := e.clusterplane("drift", manifest); code != 0 || !strings.Contains(r.stdout, "no drift") {
		t.Errorf("drift right after up = %d: %s", code, r)
	}
	// An auto-upgrade patch is the cloud's own drift.
	id := e.doCluster("dev-fra1").ID
	e.do.EditCluster(id, func(c *godo.KubernetesCluster) { c.VersionSlug = "1.31.9-do.2" })
	if r, code := e.clusterplane("drift", manifest); code != 0 {
		t.Errorf("drift after an auto-upgrade patch = %d, want none: %s", code, r)
	}
	// A console edit of the tags is drift that up puts back: refresh first is no longer needed.
	e.do.EditCluster(id, func(c *godo.KubernetesCluster) { c.Tags = []string{"edited-in-the-console"} })
	if r, code := e.clusterplane("drift", manifest); code != 3 || !strings.Contains(r.stdout, "drifted") ||
		!strings.Contains(r.stdout, "spec.tags: the cloud has [\"edited-in-the-console\"], the manifest [") {
		t.Errorf("drift after a console edit = %d, want 3 naming spec.tags with both values: %s", code, r)
	}
	if r, code := e.clusterplane("refresh", manifest); code != 0 {
		t.Errorf("refresh = %d: %s", code, r)
	}
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	if r, code := e.clusterplane("drift", manifest); code != 0 {
		t.Errorf("drift after up put the tags back = %d: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", manifest, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
	// A destroyed stack holds nothing that could differ: not deployed, not "up would create".
	if r, code := e.clusterplane("drift", manifest); code != 0 || !strings.Contains(r.stdout, "not deployed") || strings.Contains(r.stdout, "drifted") {
		t.Errorf("drift after destroy = %d, want 0 saying not deployed: %s", code, r)
	}
	e.assertNoWorkspaces()
}

func TestClusterplaneDeploysADirectoryClusterFirstThenItsPoolsInParallel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	fleet := filepath.Join(e.dir, "fleet")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	cluster := withSpec(example(t, "digitaloceankubernetescluster/production.yaml"), "  deletionProtection: false\n")
	pool := example(t, "digitaloceankubernetesnodepool/cluster-by-reference.yaml")
	for name, text := range map[string]string{
		// Named so that the pools come first in the directory: the order must come from the references.
		"c-cluster.yaml": cluster,
		"a-batch.yaml":   pool,
		"b-apps.yaml":    strings.Replace(strings.Replace(pool, "name: platform-ams3-batch", "name: platform-ams3-apps", 1), "nodePoolName: batch", "nodePoolName: apps", 1),
		"Pulumi.yaml":    "name: not-a-manifest\n",
	} {
		if err := os.WriteFile(filepath.Join(fleet, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, code := e.clusterplane("up", fleet, "--yes", "--parallel", "2")
	if code != 0 || !strings.Contains(r.stdout, "Stacks: 3 changed.") {
		t.Fatalf("up of the directory = %d: %s", code, r)
	}
	clusterID := e.doCluster("platform-ams3-prod").ID
	for _, name := range []string{"batch", "apps"} {
		e.doPool(clusterID, name) // fails the test unless the pool joined the cluster
	}
	if r, code := e.clusterplane("destroy", fleet, "--yes"); code != 0 || !strings.Contains(r.stdout, "Stacks: 3 destroyed.") {
		t.Errorf("destroy of the directory (pools first) = %d: %s", code, r)
	}
}

type statusJSON struct {
	Stack              string `json:"stack"`
	Generation         string `json:"generation"`
	ObservedGeneration string `json:"observedGeneration"`
	Conditions         []struct {
		Type, Status, Reason, Message string
	} `json:"conditions"`
	Outputs map[string]any `json:"outputs"`
}

// status is the stack's status with drift checked too (status --drift -o json).
func (e *env) status(file string) statusJSON {
	e.t.Helper()
	r, code := e.clusterplane("status", file, "--drift", "-o", "json")
	var report struct {
		Stacks []struct {
			Status statusJSON `json:"status"`
		} `json:"stacks"`
	}
	// 4 is status's not-ready exit (exitcode.NotReady in cmd/clusterplane): the conditions say why.
	if code != 0 && code != 4 || json.Unmarshal([]byte(r.stdout), &report) != nil || len(report.Stacks) != 1 {
		e.t.Fatalf("status = %d: %s", code, r)
	}
	return report.Stacks[0].Status
}

// conditionOf is the status condition of type typ: its status, reason and message.
func conditionOf(s statusJSON, typ string) (status, reason, message string) {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c.Status, c.Reason, c.Message
		}
	}
	return "", "", ""
}

// message is the message of a status condition.
func message(s statusJSON, typ string) string {
	_, _, m := conditionOf(s, typ)
	return m
}

// condition is a status condition's status and reason, "True/Deployed".
func condition(s statusJSON, typ string) string {
	status, reason, _ := conditionOf(s, typ)
	return status + "/" + reason
}

func TestClusterplaneStatusTellsAChangedManifestAndDriftAndALockedStackSaysWhatToRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")
	manifest := e.write("cluster.yaml", text)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	st := e.status(manifest)
	if st.Generation == "" || st.Generation != st.ObservedGeneration || condition(st, "Ready") != "True/Deployed" ||
		condition(st, "Drifted") != "False/InSync" {
		t.Errorf("status right after up: %+v", st)
	}
	e.do.EditCluster(e.doCluster("dev-fra1").ID, func(c *godo.KubernetesCluster) { c.Tags = []string{"edited-in-the-console"} })
	if got := condition(e.status(manifest), "Drifted"); got != "True/ChangesPending" {
		t.Errorf("Drifted after a console edit = %s", got)
	}
	e.write("cluster.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: 3", 1))
	if st := e.status(manifest); st.Generation == st.ObservedGeneration || condition(st, "Ready") != "False/ManifestChanged" {
		t.Errorf("status after the manifest changed: %+v", st)
	}

	// Another operation holds the stack's lock (or died holding it): the file backend keeps it here.
	lock := filepath.Join(e.dir, "state", ".pulumi", "locks", "organization", "digitaloceankubernetescluster", "dev-fra1", "held.json")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, []byte(`{"pid": 1, "username": "ci", "hostname": "elsewhere", "timestamp": "2026-11-22T10:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, code := e.clusterplane("up", manifest, "--yes")
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "the stack is locked") || !strings.Contains(r.stdout+r.stderr, "pulumi cancel --stack organization/digitaloceankubernetescluster/dev-fra1") {
		t.Errorf("up of a locked stack = %d, want the lock named with what to run: %s", code, r)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if r, code := e.clusterplane("destroy", manifest, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
}

// Promise: adopt-blocks-on-replacing-difference
func TestClusterplaneAdoptsAnExistingClusterAndRefusesOneTheManifestDisagreesWith(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")
	manifest := e.write("cluster.yaml", text)
	// A cluster that exists in the cloud but in no stack: deployed, then forgotten by the backend.
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	id := e.doCluster("dev-fra1").ID
	e.must(e.dir, nil, "stack", "rm", "--force", "--yes", "--preserve-config", "organization/digitaloceankubernetescluster/dev-fra1")

	// Another size of the default pool would replace the cluster: it blocks; another count is
	// listed for the next up beside it.
	other := e.write("other.yaml", strings.Replace(strings.Replace(strings.Replace(text, "name: dev-fra1\n", "name: other\n", 1),
		"nodeCount: 2", "nodeCount: 5", 1), "size: s-2vcpu-4gb", "size: s-4vcpu-8gb", 1))
	r, code := e.clusterplane("adopt", other, "--id", id)
	if code != 3 || !strings.Contains(r.stdout, "not adopted") ||
		!strings.Contains(r.stdout, `spec.defaultNodePool.size: manifest "s-4vcpu-8gb", live "s-2vcpu-4gb" (replace)`) ||
		!strings.Contains(r.stdout, "spec.defaultNodePool.nodeCount: the cloud has 2, up sends 5") {
		t.Fatalf("adopt with a disagreeing manifest = %d, want 3 listing the fields: %s", code, r)
	}
	if strings.Contains(r.stdout+r.stderr, doToken) {
		t.Error("adopt printed the token")
	}
	if r, code := e.clusterplane("adopt", manifest, "--id", id); code != 0 || !strings.Contains(r.stdout, "adopted") {
		t.Fatalf("adopt = %d: %s", code, r)
	}
	if after := e.doCluster("dev-fra1").ID; after != id || len(e.do.Clusters()) != 1 {
		t.Errorf("the cluster is %s after adopt (of %d), want %s kept", after, len(e.do.Clusters()), id)
	}
	// An adoption that left nothing for the next up is judged by the fleet scan like any up.
	if r, code := e.clusterplane("preview", manifest); code != 0 || !strings.Contains(r.stdout, "unchanged since the last up") {
		t.Errorf("preview after adopt = %d: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", manifest, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
}

// killedUp starts `clusterplane up FILE --yes` with the DigitalOcean API keeping every new
// cluster provisioning (the provider waits for it to run, as it does for minutes in the real
// cloud), and kills its process group with SIGKILL once the cloud holds the cluster named name:
// that create is in flight. The Pulumi CLI runs in another group, under clusterplane's supervisor,
// and the plugins in groups of their own: none may outlive clusterplane. The cloud's clusters run
// again afterwards.
func (e *env) killedUp(file, name string) {
	e.t.Helper()
	e.killedUpIn(file, name, e.do.SetHold, func() bool { _, ok := e.do.ClusterNamed(name); return ok }, "pulumi-resource-digitalocean")
}

// killedUpIn is killedUp on any loopback cloud: hold keeps its new clusters building while on,
// made says whether it holds the cluster named name yet, and plugin is the provider's process
// that must run while the create is in flight.
func (e *env) killedUpIn(file, name string, hold func(bool), made func() bool, plugin string) {
	e.t.Helper()
	hold(true)
	defer hold(false)
	cmd := exec.Command(filepath.Join(binaries(e.t), "clusterplane"), "up", file, "--yes")
	cmd.Dir = e.dir
	cmd.Env = e.vars
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	defer func() { e.log(out.String()) }()
	for deadline := time.Now().Add(3 * time.Minute); ; {
		if made() {
			break
		}
		select {
		case <-ended:
			e.t.Fatalf("the up ended (%v) before the cloud held cluster %s:\n%s", cmd.ProcessState, name, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-ended
			e.t.Fatalf("no cluster %s in the cloud 3 minutes into the up:\n%s", name, out.String())
		}
	}
	if plugins := e.running(plugin); len(plugins) == 0 {
		e.t.Errorf("no %s of this test runs while it creates the cluster: the check below sees nothing", plugin)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		e.t.Fatalf("kill the up's process group: %v", err)
	}
	<-ended
	if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !status.Signaled() {
		e.t.Fatalf("the up ended before it was killed (%v):\n%s", cmd.ProcessState, out.String())
	}
	e.assertNothingRuns("after clusterplane was killed")
	e.assertWorkspacesNameNoBackend()
}

// assertWorkspacesNameNoBackend checks the workspaces a killed clusterplane left (the next
// command sweeps them): private, and their Pulumi.yaml without the backend's URL, which may hold
// a password; the CLI reads it from its environment.
func (e *env) assertWorkspacesNameNoBackend() {
	e.t.Helper()
	var backend string
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "PULUMI_BACKEND_URL="); ok {
			backend = v
		}
	}
	projects, _ := filepath.Glob(filepath.Join(e.dir, "tmp", "clusterplane-*", "*", "Pulumi.yaml"))
	if len(projects) == 0 {
		e.t.Errorf("the killed clusterplane left no workspace to check")
	}
	for _, p := range projects {
		data, err := os.ReadFile(p)
		if err != nil {
			e.t.Fatal(err)
		}
		if backend == "" || strings.Contains(string(data), backend) || strings.Contains(string(data), "backend") {
			e.t.Errorf("%s names the backend:\n%s", p, data)
		}
		if info, err := os.Stat(filepath.Dir(p)); err != nil || info.Mode().Perm() != 0o700 {
			e.t.Errorf("the workspace %s is not private: %v %v", filepath.Dir(p), info.Mode(), err)
		}
	}
}

// running are the processes of this test's commands (their environment names its Pulumi home)
// whose command line holds word, "" for all, as "pid command line".
func (e *env) running(word string) []string {
	var home string
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "PULUMI_HOME="); ok {
			home = v
		}
	}
	mark := []byte("\x00PULUMI_HOME=" + home + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, entry := range entries {
		if _, err := strconv.Atoi(entry.Name()); err != nil {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, environ...), mark) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", entry.Name(), "cmdline"))
		line := strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
		if strings.Contains(line, word) {
			out = append(out, entry.Name()+" "+line)
		}
	}
	return out
}

// assertNothingRuns checks that no process of this test's commands is left a few seconds after
// when: no Pulumi CLI, no provider plugin polling the cloud with the test's token. Those left are
// killed, so that they do not outlive the test.
func (e *env) assertNothingRuns(when string) {
	e.t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(e.running("")) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	left := e.running("")
	if len(left) == 0 {
		return
	}
	e.t.Errorf("%d processes still run %s:\n%s", len(left), when, strings.Join(left, "\n"))
	for _, p := range left {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// assertNoWorkspaces checks that the commands left no stack workspace in the test's temporary
// folder: neither the Automation API's pulumi_auto* folders nor clusterplane's own. Each holds a
// stack's Pulumi.yaml and its encryption salt.
func (e *env) assertNoWorkspaces() {
	e.t.Helper()
	tmp := filepath.Join(e.dir, "tmp")
	entries, err := os.ReadDir(tmp)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, entry := range entries {
		switch {
		case strings.HasPrefix(entry.Name(), "pulumi_auto"):
			e.t.Errorf("a workspace of the Automation API is left: %s", entry.Name())
		case strings.HasPrefix(entry.Name(), "clusterplane-"):
			left, _ := os.ReadDir(filepath.Join(tmp, entry.Name()))
			for _, l := range left {
				e.t.Errorf("a workspace of clusterplane is left: %s/%s", entry.Name(), l.Name())
			}
		}
	}
}

// upHeldAtItsCreate starts clusterplane up of a cluster in its own process group (a terminal's
// Ctrl-C goes to the foreground group: clusterplane's own) and returns once the engine has sent
// the create, which the cloud holds unanswered until the test ends: the engine would take its
// whole grace period to end. ended closes when clusterplane exits; out is what it printed.
func (e *env) upHeldAtItsCreate() (cmd *exec.Cmd, out *bytes.Buffer, ended chan struct{}) {
	e.t.Helper()
	manifest := e.write("cluster.yaml", example(e.t, "digitaloceankubernetescluster/minimal.yaml"))
	e.do.SetHold(true)
	e.t.Cleanup(func() { e.do.SetHold(false) })
	cmd = exec.Command(filepath.Join(binaries(e.t), "clusterplane"), "up", manifest, "--yes")
	cmd.Dir, cmd.Env = e.dir, e.vars
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ended = make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, ok := e.do.ClusterNamed("dev-fra1"); ok {
			return cmd, out, ended
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-ended
			e.t.Fatalf("no cluster in the cloud 3 minutes into the up:\n%s", out.String())
		}
	}
}

func TestClusterplaneInterruptedByCtrlCEndsItsEngineAndPluginsAndLeavesNoWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd, out, ended := e.upHeldAtItsCreate()
	defer func() { e.log(out.String()) }()
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-ended
		t.Fatalf("the interrupted up did not end within a minute:\n%s", out.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("the interrupted up = %d, want 130:\n%s", code, out.String())
	}
	e.assertNothingRuns("after clusterplane was interrupted")
	e.assertNoWorkspaces()
	e.statusFromRecordsAgrees(filepath.Join(e.dir, "cluster.yaml"))
}

// The engine answers the first Ctrl-C with "press ^C again to terminate immediately": a second
// one ends clusterplane at once, not after the wait the first one allows the engine, and the
// engine and its plugins end with it.
// Promise: ctrl-c-exits-130
func TestASecondCtrlCEndsClusterplaneAtOnceAndItsEngineWithIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd, out, ended := e.upHeldAtItsCreate()
	defer func() { e.log(out.String()) }()
	for range 2 {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	select {
	case <-ended:
	case <-time.After(4 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-ended
		t.Fatalf("a second Ctrl-C did not end clusterplane at once:\n%s", out.String())
	}
	if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("clusterplane after a second Ctrl-C: %v, want it ended by the interrupt (130 in a shell)", cmd.ProcessState)
	}
	e.assertNothingRuns("after a second Ctrl-C")
}

func TestClusterplaneTimedOutOnAStackEndsItsEngineAndPluginsAndLeavesNoWorkspace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	// The cloud keeps the cluster provisioning: the create is in flight when the deadline comes.
	e.do.SetHold(true)
	defer e.do.SetHold(false)
	start := time.Now()
	r, code := e.clusterplane("up", manifest, "--yes", "--stack-timeout", "40s")
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "timed out after 40s") {
		t.Fatalf("up with a deadline the create outlasts = %d after %s, want it timed out: %s", code, time.Since(start), r)
	}
	if _, ok := e.do.ClusterNamed("dev-fra1"); !ok {
		t.Errorf("the cloud holds no cluster: the deadline came before the create")
	}
	e.assertNothingRuns("after clusterplane ended at its stack's deadline")
	e.assertNoWorkspaces()
}

// backticked are the commands a message says to run, in order.
func backticked(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// Promise: dead-lock-removed-by-the-next-run
func TestClusterplaneAfterAnUpKilledHalfwaySaysThePendingOperationsAndWhatToRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	e.killedUp(manifest, "dev-fra1")
	id := e.doCluster("dev-fra1").ID

	// status says what was interrupted and what to run, with the cloud id to find.
	st := e.status(manifest)
	advice := message(st, "Ready")
	if condition(st, "Ready") != "False/PendingCreates" || condition(st, "Drifted") != "Unknown/PendingCreates" ||
		!strings.Contains(advice, "interrupted while creating digitalocean:index/kubernetesCluster:KubernetesCluster dev-fra1") {
		t.Errorf("status after a killed up: %+v", st)
	}
	// The killed up left the stack locked, and the cloud holds the cluster: status's advice says
	// both, with the id, so that nobody has to look it up.
	commands := backticked(advice)
	if len(commands) != 2 || commands[0] != "pulumi cancel --stack organization/digitaloceankubernetescluster/dev-fra1 --yes" ||
		commands[1] != "clusterplane refresh "+manifest+" --import-pending-create "+id ||
		!strings.Contains(advice, "the stack is still locked") || !strings.Contains(advice, "(id "+id+")") {
		t.Fatalf("the advice names %q, want the lock's cancel, then the refresh that records the cloud's cluster %s: %s", commands, id, advice)
	}

	// up refuses to create the cluster a second time (3). The lock's process, of this machine, no
	// longer runs: up removes the lock, says so, and names what is left, the refresh.
	r, code := e.clusterplane("up", manifest, "--yes")
	if code != 3 || !strings.Contains(r.stdout+r.stderr, "removed the Pulumi lock that process ") ||
		!strings.Contains(r.stdout, "`"+commands[1]+"`") || strings.Contains(r.stdout, commands[0]) {
		t.Fatalf("up after a killed up = %d, want refused (3), the dead lock removed, and only %s to run: %s", code, commands[1], r)
	}
	if n := len(e.do.Clusters()); n != 1 {
		t.Fatalf("%d clusters in the cloud after the refused up, want 1", n)
	}
	if st := e.status(manifest); strings.Contains(message(st, "Ready"), "pulumi cancel") {
		t.Errorf("status after the up still names the lock it removed: %+v", st)
	}
	// Follow what is left as written: the cluster the cloud holds.
	if r, code := e.clusterplane(strings.Fields(commands[1])[1:]...); code != 0 {
		t.Fatalf("%s = %d: %s", commands[1], code, r)
	}
	// The stack now holds the cluster, though no up finished on it: status says so, not "no
	// update yet".
	if _, reason, message := conditionOf(e.status(manifest), "Ready"); !strings.Contains(message, "no up has finished on it") {
		t.Errorf("status after recording the cluster = %s: %s, want it to say the stack holds it and no up finished", reason, message)
	}
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 || strings.Contains(r.stdout, "create") {
		t.Fatalf("up after following the advice = %d, want nothing to create: %s", code, r)
	}
	// Nothing lost, nothing duplicated: the one cluster, the stack's own, deployed.
	if clusters := e.do.Clusters(); len(clusters) != 1 || clusters[0].ID != id {
		t.Errorf("the cloud holds %d clusters, want only %s", len(clusters), id)
	}
	if st := e.status(manifest); condition(st, "Ready") != "True/Deployed" || condition(st, "Drifted") != "False/InSync" ||
		st.Outputs["cluster_id"] != id {
		t.Errorf("status after the recovery: %+v, want Ready, in sync, cluster_id %s", st, id)
	}
	// The killed up could not remove its workspace; the commands after it swept it.
	e.assertNoWorkspaces()
}

func TestClusterplaneKeepsTheApiTokenEncryptedAtRestAndUsesItOnLaterCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The token, given only in the stack input's providerConfig.
	token := doToken
	e.vars = append(e.vars, "DIGITALOCEAN_TOKEN=")
	text := "target:\n" + indent(withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")) +
		"providerConfig:\n  apiToken: " + token + "\n"
	input := e.write("cluster.stack-input.yaml", text)
	notAtRest := func(when string) {
		t.Helper()
		for _, dir := range []string{"state", "home"} {
			_ = filepath.WalkDir(filepath.Join(e.dir, dir), func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if data, err := os.ReadFile(path); err != nil || bytes.Contains(data, []byte(token)) {
					t.Errorf("%s: %s holds the token in plain text (%v)", when, path, err)
				}
				return nil
			})
		}
		if strings.Contains(e.logs.String(), token) {
			t.Errorf("%s: a command printed the token", when)
		}
	}
	if r, code := e.clusterplane("up", input, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	notAtRest("after up")
	// The state holds the provider's token as a secret, which the passphrase opens to the token:
	// refresh and destroy, which run no program, configure the provider from it.
	export := exec.Command(filepath.Join(root, ".engine", "bin", "pulumi"), "stack", "export", "--show-secrets",
		"--stack", "organization/digitaloceankubernetescluster/dev-fra1", "--non-interactive")
	export.Dir, export.Env = e.dir, e.vars
	// Its output is the test's own request, not logged.
	if out, err := export.Output(); err != nil || !bytes.Contains(out, []byte(`"plaintext": "\"`+token+`\""`)) {
		t.Errorf("the state's provider token does not decrypt to the manifest's (%v)", err)
	}
	if r, code := e.clusterplane("refresh", input); code != 0 {
		t.Errorf("refresh = %d: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", input, "--yes"); code != 0 {
		t.Errorf("destroy = %d: %s", code, r)
	}
	if n := len(e.do.Clusters()); n != 0 {
		t.Errorf("%d clusters left in the cloud after destroy", n)
	}
	notAtRest("after refresh and destroy")
}

// indent indents every line of text by two spaces.
func indent(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n  ") + "\n"
}

// statusFromRecordsAgrees checks that status, which reads the stack's records from the backend's
// files itself, says what status --drift says, which opens the stack through the Automation API.
// Only what --drift adds is left out: the Drifted condition, and a Ready it turns to OrphanPool.
// An opened stack's state and last update are read from the files too where they can be: that
// those reads are what `pulumi stack export` and `stack history` say is held in package autostack
// (TestAStacksStateAndLastUpdateReadHereAreWhatTheRealCLISays, which make e2e runs).
func (e *env) statusFromRecordsAgrees(file string) {
	e.t.Helper()
	read := func(args ...string) map[string]any {
		r, code := e.clusterplane(append([]string{"status", file, "-o", "json"}, args...)...)
		var report struct {
			Stacks []struct {
				Status map[string]any `json:"status"`
			} `json:"stacks"`
		}
		if code != 0 && code != 4 || json.Unmarshal([]byte(r.stdout), &report) != nil || len(report.Stacks) != 1 {
			e.t.Fatalf("status %v = %d: %s", args, code, r)
		}
		st := report.Stacks[0].Status
		var kept []any
		for _, c := range st["conditions"].([]any) {
			if c.(map[string]any)["type"] != "Drifted" {
				kept = append(kept, c)
			}
		}
		st["conditions"] = kept
		return st
	}
	records, cli := read(), read("--drift")
	if c := cli["conditions"].([]any); len(c) == 1 && c[0].(map[string]any)["reason"] == "OrphanPool" {
		records["conditions"], cli["conditions"] = nil, nil
	}
	if !reflect.DeepEqual(records, cli) {
		got, _ := json.MarshalIndent(records, "", "  ")
		want, _ := json.MarshalIndent(cli, "", "  ")
		e.t.Errorf("status from the backend's records:\n%s\nthrough the Pulumi CLI:\n%s", got, want)
	}
}

// A newcomer's up with no token in the environment or the manifest is refused before the engine
// runs, naming the file and the variable: no stack recorded, nothing asked of the cloud.
// Promise: up-without-a-token-refused-before-the-engine
func TestAnUpWithNoTokenIsRefusedBeforeTheEngineAndRecordsNoStack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.vars = append(e.vars, "DIGITALOCEAN_TOKEN=")
	manifest := e.write("cluster.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	before := len(e.do.Requests(""))
	r, code := e.clusterplane("up", manifest, "--yes")
	if code != 1 || !strings.Contains(r.stderr+r.stdout, "cluster.yaml: no DigitalOcean API token: set DIGITALOCEAN_TOKEN") {
		t.Fatalf("up with no token = %d, want 1 naming the file and DIGITALOCEAN_TOKEN: %s", code, r)
	}
	if n := len(e.do.Requests("")) - before; n != 0 {
		t.Errorf("the refused up sent the cloud %d requests, want none", n)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.dir, "state", ".pulumi", "stacks")); len(entries) != 0 {
		t.Errorf("the refused up recorded stacks: %v", entries)
	}
}
