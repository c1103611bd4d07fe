//go:build e2e

package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

// A team on one backend: two operators, each with a Pulumi home of their own (as two laptops, or a
// laptop and a CI runner), share state in one real PostgreSQL database and the one cloud.

// operator is another person on the test's backend and clouds: a Pulumi home of their own with the
// plugins installed, the backend at backend, the test's manifests and folder. Variables in extra
// (NAME=value) replace the test's.
func (e *env) operator(name, backend string, extra ...string) *env {
	e.t.Helper()
	home := filepath.Join(e.dir, name+"-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		e.t.Fatal(err)
	}
	for _, p := range providerPlugins(e.t) {
		install(e.t, home, p)
	}
	install(e.t, home, plugin{"clusterplane", "0.0.0", filepath.Join(binaries(e.t), "pulumi-resource-clusterplane")})
	o := &env{t: e.t, dir: e.dir, do: e.do, civo: e.civo}
	replace := map[string]string{"PULUMI_HOME": home, "PULUMI_BACKEND_URL": backend}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		replace[k] = v
	}
	for _, kv := range e.vars {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := replace[k]; !ok {
			o.vars = append(o.vars, kv)
		}
	}
	for k, v := range replace {
		o.vars = append(o.vars, k+"="+v)
	}
	e.t.Cleanup(func() { o.assertNoSecrets() })
	return o
}

// cluster writes a DigitalOcean cluster manifest of name (its clusterName too), unprotected, and returns its file.
func (e *env) cluster(name string) string {
	e.t.Helper()
	text := strings.ReplaceAll(example(e.t, "digitaloceankubernetescluster/minimal.yaml"), "dev-fra1", name)
	text = strings.Replace(text, "\nspec:\n", "\nspec:\n  deletionProtection: false\n", 1)
	return e.write(name+".yaml", text)
}

// pool writes a DigitalOcean pool manifest of name in the cluster of the manifest clusterName,
// and returns its file.
func (e *env) pool(name, clusterName string) string {
	e.t.Helper()
	return e.write(name+".yaml", `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: `+name+`
spec:
  nodePoolName: `+name+`
  cluster:
    valueFrom: {kind: DigitalOceanKubernetesCluster, name: `+clusterName+`}
  size: s-2vcpu-4gb
  nodeCount: 1
`)
}

// ok runs clusterplane and fails the test unless it exits 0.
func (e *env) ok(args ...string) result {
	e.t.Helper()
	r, code := e.clusterplane(args...)
	if code != 0 {
		e.t.Fatalf("clusterplane %s = %d: %s", strings.Join(args, " "), code, r)
	}
	return r
}

// Promise: team-backend-proven-on-postgresql
// Promise: pko-token-never-in-the-stacks-configuration
func TestTwoOperatorsShareAFleetOnOnePostgreSQLBackend(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	e := newEnv(t)
	backend := db.Database("fleet")
	alice, bob := e.operator("alice", backend), e.operator("bob", backend)

	// Alice deploys the clusters; Bob deploys the pools, which read Alice's clusters' outputs
	// through stack references on the shared backend.
	a, b := e.cluster("alpha"), e.cluster("beta")
	alice.ok("up", a, b, "--yes")
	pa, pb := e.pool("alpha-workers", "alpha"), e.pool("beta-workers", "beta")
	bob.ok("up", pa, pb, "--yes")
	for _, p := range []struct{ cluster, pool string }{{"alpha", "alpha-workers"}, {"beta", "beta-workers"}} {
		if got := e.doPool(e.doCluster(p.cluster).ID, p.pool); got.Count != 1 {
			t.Errorf("pool %s in cluster %s: %+v", p.pool, p.cluster, got)
		}
	}
	// Each sees the other's stacks: Alice reads Bob's pools ready, Bob reads Alice's clusters.
	for _, who := range []*env{alice, bob} {
		for _, file := range []string{a, b, pa, pb} {
			if st := who.status(file); condition(st, "Ready") != "True/Deployed" {
				t.Errorf("status of %s: %+v", filepath.Base(file), st)
			}
		}
	}
	// Status reads the stacks' rows itself, and says what the CLI would.
	for _, file := range []string{a, pb} {
		alice.statusFromRecordsAgrees(file)
	}
	if r := alice.ok("status", a); strings.Contains(r.stderr, "through the Pulumi CLI") {
		t.Errorf("status on PostgreSQL read the records through the CLI: %s", r)
	}
	// Bob cannot destroy Alice's cluster under his pools: the folder says they reference it.
	if r, code := bob.clusterplane("destroy", a, "--yes"); code != 3 || !strings.Contains(r.stdout+r.stderr, "digitaloceankubernetesnodepool/alpha-workers") {
		t.Errorf("destroy of a referenced cluster = %d, want 3 naming the pool: %s", code, r)
	}
	// Nothing at rest in the database holds a token or a kubeconfig.
	rows := db.Dump("fleet")
	if !strings.Contains(rows, "digitaloceankubernetescluster") {
		t.Fatalf("the database holds no stack: is the backend the database?\n%.2000s", rows)
	}
	for _, secret := range append([]string{doToken, civoToken}, kubeconfigMarks...) {
		if strings.Contains(rows, secret) {
			t.Errorf("the database holds %q in plain text", secret)
		}
	}
}

// Promise: team-backend-proven-on-postgresql
func TestTwoOperatorsRunningUpOnOneStackOneProceedsTheOtherIsToldOfTheLock(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	e := newEnv(t)
	backend := db.Database("lock")
	alice, bob := e.operator("alice", backend), e.operator("bob", backend)
	file := e.cluster("shared")

	// Alice's up creates the cluster, which the cloud keeps provisioning until released: her up
	// holds the stack's lock all along.
	cmd, ended, out := e.heldUp(alice, file, "shared")

	// Bob's up of the same stack meanwhile: refused, naming the lock and what to do.
	r, code := bob.clusterplane("up", file, "--yes")
	// clusterplane's own lock of the stack, in the PostgreSQL backend, turns him away before the
	// engine runs; it ends with Alice's process, so there is nothing for him to remove.
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "digitaloceankubernetescluster/shared is busy") ||
		!strings.Contains(r.stdout+r.stderr, "holds its lock") {
		t.Errorf("Bob's up while Alice's runs = %d, want refused naming the stack's lock: %s", code, r)
	}
	if n := len(e.do.Clusters()); n != 1 {
		t.Errorf("%d clusters in the cloud, want Alice's only", n)
	}

	// Alice's up ends well once the cloud is done.
	e.do.SetHold(false)
	select {
	case err := <-ended:
		alice.log(out.String())
		if err != nil {
			t.Fatalf("Alice's up: %v\n%s", err, out.String())
		}
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("Alice's up did not end:\n%s", out.String())
	}

	// Nothing lost: the state exports and imports again cleanly, and both read it deployed, in sync.
	state := filepath.Join(e.dir, "shared-state.json")
	stack := "organization/digitaloceankubernetescluster/shared"
	if r := bob.pulumi(e.dir, nil, "stack", "export", "--stack", stack, "--file", state); r.err != nil {
		t.Fatalf("export: %s", r)
	}
	if r := bob.pulumi(e.dir, nil, "stack", "import", "--stack", stack, "--file", state); r.err != nil {
		t.Fatalf("import: %s", r)
	}
	for _, who := range []*env{alice, bob} {
		if st := who.status(file); condition(st, "Ready") != "True/Deployed" || st.Generation != st.ObservedGeneration {
			t.Errorf("status after both ups: %+v", st)
		}
	}
	if r, code := bob.clusterplane("drift", file); code != 0 {
		t.Errorf("drift after both ups = %d: %s", code, r)
	}
}

// Promise: team-backend-proven-on-postgresql
func TestAnUpKilledOnOneMachineIsFinishedFromAnotherByFollowingTheAdvice(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	e := newEnv(t)
	backend := db.Database("killed")
	alice, bob := e.operator("alice", backend), e.operator("bob", backend)
	file := e.cluster("interrupted")
	alice.killedUp(file, "interrupted")
	id := e.doCluster("interrupted").ID
	// Alice's machine is this one in the test: her CLI's lock is made to name another, as it would
	// on her laptop, so that Bob's run cannot tell her process is gone and leaves the lock to him.
	db.Run("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(db.Port()), "-U", "clusterplane", "-d", "killed", "-v", "ON_ERROR_STOP=1", "-c",
		`UPDATE pulumi_state SET data = json_build_object('data', replace(encode(convert_to(regexp_replace(
			convert_from(decode(data->>'data', 'base64'), 'UTF8'), '"hostname":"[^"]*"', '"hostname":"alice-laptop"'), 'UTF8'), 'base64'), E'\n', ''))
		WHERE key LIKE 'killed/.pulumi/locks/%'`)

	// Bob's status reads the lock Alice's CLI left in the database, and says it is held.
	if r, _ := bob.clusterplane("status", file); !strings.Contains(r.stdout+r.stderr, "still locked") {
		t.Errorf("Bob's status after Alice's up was killed does not say the stack is still locked: %s", r)
	}
	// Bob sees the pending create and the advice, and follows it as written.
	r, code := bob.clusterplane("up", file, "--yes")
	commands := backticked(r.stdout) // the cause, in its row of the table
	if code == 0 || len(commands) != 2 || !strings.HasPrefix(commands[0], "pulumi cancel --stack organization/digitaloceankubernetescluster/interrupted") ||
		!strings.HasSuffix(commands[1], "--import-pending-create "+id) {
		t.Fatalf("Bob's up after Alice's was killed = %d, want the advice: %s", code, r)
	}
	if r := bob.pulumi(e.dir, nil, strings.Fields(commands[0])[1:]...); r.err != nil {
		t.Fatalf("%s: %s", commands[0], r)
	}
	bob.ok(strings.Fields(commands[1])[1:]...)
	bob.ok("up", file, "--yes")
	if clusters := e.do.Clusters(); len(clusters) != 1 || clusters[0].ID != id {
		t.Errorf("the cloud holds %d clusters, want only %s", len(clusters), id)
	}
	if st := alice.status(file); condition(st, "Ready") != "True/Deployed" || st.Outputs["cluster_id"] != id {
		t.Errorf("Alice's status after Bob's recovery: %+v", st)
	}
}

// Promise: team-backend-proven-on-postgresql
func TestAnOperatorWithAnotherPassphraseIsToldItDoesNotMatch(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	e := newEnv(t)
	backend := db.Database("passphrase")
	alice := e.operator("alice", backend)
	mallory := e.operator("mallory", backend, "PULUMI_CONFIG_PASSPHRASE=not-the-teams")
	file := e.cluster("secret")
	alice.ok("up", file, "--yes")
	// An up or a status --drift of a stack the fleet scan finds unchanged opens no stack, so reads
	// no secret: --deep asks for the engine, which opens the stack's secrets with the passphrase
	// given.
	for _, cmd := range [][]string{{"status", file, "--drift", "--deep"}, {"up", file, "--yes", "--deep"}, {"kubeconfig", file}} {
		r, code := mallory.clusterplane(cmd...)
		if code == 0 || !strings.Contains(r.stdout+r.stderr, "the passphrase in PULUMI_CONFIG_PASSPHRASE does not match the one the stack's secrets were encrypted with") {
			t.Errorf("%s with another passphrase = %d, want the mismatch named: %s", cmd[0], code, r)
		}
		if strings.Contains(r.stdout+r.stderr, "not-the-teams") {
			t.Errorf("%s printed the passphrase", cmd[0])
		}
	}
	if st := alice.status(file); condition(st, "Ready") != "True/Deployed" {
		t.Errorf("the stack after the refused operator: %+v", st)
	}
}

// Promise: secrets-provider-url-that-cannot-work-refused
func TestASecretsProviderURLThatCannotWorkIsRefusedBeforeAnyStackExists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file := e.cluster("kms")
	for _, tt := range []struct{ provider, says string }{
		{"kms://alias/x", "Pulumi accepts passphrase"},
		{"gcpkms://projects/p/locations/l/keyRings/r/cryptoKeys/k", "the secrets provider gcpkms://projects/p/locations/l/keyRings/r/cryptoKeys/k cannot be used"},
	} {
		r, code := e.clusterplane("up", file, "--yes", "--secrets-provider", tt.provider)
		if code == 0 || !strings.Contains(r.stdout+r.stderr, tt.says) {
			t.Errorf("up --secrets-provider %s = %d, want %q: %s", tt.provider, code, tt.says, r)
		}
	}
	if n := len(e.do.Clusters()); n != 0 {
		t.Errorf("%d clusters created", n)
	}
	if r, _ := e.clusterplane("status", file); !strings.Contains(r.stdout, "NotDeployed") {
		t.Errorf("a stack was left behind: %s", r)
	}
}

func TestTwoOperatorsUpsOfDifferentChangesToOneStackEachReportTheirOwn(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	e := newEnv(t)
	backend := db.Database("changes")
	alice, bob := e.operator("alice", backend), e.operator("bob", backend)
	file := e.cluster("shared")
	alice.ok("up", file, "--yes")

	fields := func(who *env, file string) []string {
		t.Helper()
		r := who.ok("up", file, "--yes", "-o", "json")
		var report struct {
			Stacks []struct {
				Resources []struct {
					Fields []struct {
						Path string `json:"path"`
					} `json:"fields"`
				} `json:"resources"`
			} `json:"stacks"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Stacks) != 1 {
			t.Fatalf("up -o json: %v\n%s", err, r.stdout)
		}
		var paths []string
		for _, res := range report.Stacks[0].Resources {
			for _, f := range res.Fields {
				paths = append(paths, f.Path)
			}
		}
		return paths
	}
	// Alice scales; then Bob, whose manifest has her scale too, tags the cluster.
	scaled := strings.Replace(readFile(t, file), "nodeCount: 2", "nodeCount: 3", 1)
	aliceFile := e.write("alice.yaml", scaled)
	bobFile := e.write("bob.yaml", strings.Replace(scaled, "\nspec:\n", "\nspec:\n  tags: [team-b]\n", 1))
	if got := fields(alice, aliceFile); !slices.Equal(got, []string{"spec.defaultNodePool.nodeCount"}) {
		t.Errorf("Alice's up reports %v, want her scale only", got)
	}
	if got := fields(bob, bobFile); !slices.Equal(got, []string{"spec.tags"}) {
		t.Errorf("Bob's up reports %v, want his tags only, not Alice's scale before it", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestAStackLockInAPostgreSQLBackendHoldsTwoMachinesApartAndEndsWithItsProcess(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	url := db.Database("stacklock")
	e := newEnv(t)
	alice, bob := e.operator("alice", url), e.operator("bob", url)
	file := e.cluster("locked")

	// Alice's up holds the stack while the cloud keeps provisioning; she is then killed.
	cmd, ended, _ := e.heldUp(alice, file, "locked")
	if r, code := bob.clusterplane("refresh", file); code == 0 || !strings.Contains(r.stdout+r.stderr, "holds its lock") {
		t.Errorf("Bob's refresh while Alice's up runs = %d, want turned away by the stack's lock: %s", code, r)
	}
	_ = cmd.Process.Kill()
	<-ended
	e.do.SetHold(false)
	// The killed process's session is gone, and its lock with it: Bob is not told the stack is
	// busy (Pulumi's own lock, left by the killed engine, is another matter, with its own advice).
	if r, _ := bob.clusterplane("refresh", file); strings.Contains(r.stdout+r.stderr, "holds its lock") {
		t.Errorf("Bob's refresh after Alice's up was killed is still turned away by clusterplane's lock: %s", r)
	}
}

// heldUp starts who's `clusterplane up FILE --yes` of a cluster named name with the cloud holding
// its clusters in provisioning (SetHold), and returns once the cloud has the cluster: the up is
// then running, holding the stack. ended says when it ends; out is what it printed.
func (e *env) heldUp(who *env, file, name string) (*exec.Cmd, chan error, *strings.Builder) {
	e.t.Helper()
	e.do.SetHold(true)
	cmd := exec.Command(filepath.Join(binaries(e.t), "clusterplane"), "up", file, "--yes")
	cmd.Dir, cmd.Env = e.dir, who.vars
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, ok := e.do.ClusterNamed(name); ok {
			return cmd, ended, out
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			e.t.Fatalf("the up created nothing in 3 minutes:\n%s", out.String())
		}
	}
}
