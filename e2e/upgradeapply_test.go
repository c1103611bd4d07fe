//go:build e2e

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fleetManifest is a DigitalOcean cluster of env on 1.31.9-do.2, the latest 1.31 the loopback
// cloud offers (DigitalOcean takes a minor upgrade only from there).
func fleetManifest(name, env string) string {
	return fmt.Sprintf(`apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: %[1]s
  env: %[2]s
spec:
  clusterName: %[1]s
  region: fra1
  kubernetesVersion: 1.31.9-do.2
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`, name, env)
}

// Promise: upgrade-apply-manifests-at-goal
func TestUpgradeApplyStopsAtAFailedUpgradeAndTheSameCommandFinishesTheFleetOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.dir, "fleet"), 0o755); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"dev-a": "dev", "staging-a": "staging", "staging-b": "staging", "prod-a": "prod"}
	for name, env := range names {
		e.write(filepath.Join("fleet", name+".yaml"), fleetManifest(name, env))
	}
	if r, code := e.clusterplane("up", "fleet", "--yes", "--parallel", "4"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	prodID := e.doCluster("prod-a").ID
	e.do.Reset() // the request log from here on
	e.do.SetUpgradeTime(3 * time.Second)
	e.do.FailUpgrades("staging-a", true)
	apply := []string{"upgrade", "apply", "fleet", "--to", "1.33.1-do.0", "--allow-unchecked-apis", "--parallel", "2", "--poll", "500ms"}

	// staging-a's upgrade fails: the rollout stops there, and production is never sent a change.
	r, code := e.clusterplane(append(apply, "--report-file", "rollout.json")...)
	if code != 1 || !strings.Contains(r.stdout, "stopped (failed): staging-a") {
		t.Fatalf("upgrade apply with a failing staging cluster = %d, want 1 naming staging-a: %s", code, r)
	}
	e.assertUnchanged("prod-a", prodID)
	if v := e.doCluster("dev-a").VersionSlug; v != "1.33.1-do.0" {
		t.Errorf("dev-a runs %s after the first run, want 1.33.1-do.0", v)
	}
	if data, err := os.ReadFile(filepath.Join(e.dir, "fleet", "staging-a.yaml")); err != nil || !strings.Contains(string(data), "kubernetesVersion: 1.31.9-do.2") {
		t.Errorf("the failed cluster's manifest does not name what it runs (%v):\n%s", err, data)
	}
	if data, err := os.ReadFile(filepath.Join(e.dir, "rollout.json")); err != nil || !strings.Contains(string(data), `"stop": "failed"`) {
		t.Errorf("the report file does not say the rollout failed (%v): %s", err, data)
	}

	// Fixed, then run again and killed while a step is under way; then the same command again.
	e.do.FailUpgrades("staging-a", false)
	e.killedDuring(apply, "waiting for a step it deployed", func(out string) bool { return strings.Contains(out, "waiting for the cloud") }, 0)
	e.assertNothingRuns("after upgrade apply was killed")
	r, code = e.clusterplane(apply...)
	if code != 0 {
		t.Fatalf("upgrade apply after the fix = %d: %s", code, r)
	}
	sent := map[string]int{}
	for _, u := range e.do.Upgrades() {
		sent[fmt.Sprintf("%s %s→%s", u.ClusterName, u.From, u.To)]++
	}
	for name := range names {
		for _, step := range []string{"1.31.9-do.2→1.32.2-do.0", "1.32.2-do.0→1.33.1-do.0"} {
			want := 1
			if name == "staging-a" && strings.HasPrefix(step, "1.31") {
				want = 2 // the failed upgrade, and the one after the fix
			}
			if got := sent[name+" "+step]; got != want {
				t.Errorf("%s %s was sent %d times, want %d (all sent: %v)", name, step, got, want, sent)
			}
		}
		if v := e.doCluster(name).VersionSlug; v != "1.33.1-do.0" {
			t.Errorf("%s runs %s, want 1.33.1-do.0", name, v)
		}
		data, err := os.ReadFile(filepath.Join(e.dir, "fleet", name+".yaml"))
		if err != nil || !strings.Contains(string(data), "kubernetesVersion: 1.33.1-do.0") || strings.Contains(string(data), "upgrade-to") {
			t.Errorf("%s's manifest does not name its goal alone (%v):\n%s", name, err, data)
		}
	}
	// The stacks record the versions reached: drift finds nothing.
	if r, code := e.clusterplane("drift", "fleet", "--deep"); code != 0 {
		t.Errorf("drift after the rollout = %d: %s", code, r)
	}
}

func TestUpgradeApplyTakesACivoFleetOneStepEachClusterOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	if err := os.MkdirAll(filepath.Join(e.dir, "civo"), 0o755); err != nil {
		t.Fatal(err)
	}
	example := example(t, "civokubernetescluster/minimal.yaml")
	for name, env := range map[string]string{"civo-dev": "dev", "civo-prod": "prod"} {
		m := strings.Replace(example, "  name: dev-fra1\n", "  name: "+name+"\n  env: "+env+"\n", 1)
		e.write(filepath.Join("civo", name+".yaml"), strings.Replace(m, "clusterName: dev-fra1", "clusterName: "+name, 1))
	}
	if r, code := e.clusterplane("up", "civo", "--yes", "--parallel", "2"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	r, code := e.clusterplane("upgrade", "apply", "civo", "--to", "1.31.1-k3s1", "--allow-unchecked-apis", "--parallel", "2", "--poll", "500ms")
	if code != 0 || !strings.Contains(r.stdout, "2 of 2 clusters at their goal") {
		t.Fatalf("upgrade apply of the Civo fleet = %d: %s", code, r)
	}
	sent := map[string]int{}
	for _, u := range e.civo.Upgrades() {
		sent[u.ClusterName+" "+u.From+"→"+u.To]++
	}
	for _, name := range []string{"civo-dev", "civo-prod"} {
		if got := sent[name+" 1.30.5-k3s1→1.31.1-k3s1"]; got != 1 {
			t.Errorf("%s was upgraded %d times, want once (all: %v)", name, got, sent)
		}
	}
	if r, code := e.clusterplane("drift", "civo", "--deep"); code != 0 {
		t.Errorf("drift after the rollout = %d: %s", code, r)
	}
}

// assertUnchanged fails the test when DigitalOcean's cluster name (its id) was sent an upgrade or
// any other request that changes it since the request log was last reset. A clusterlint run
// (POST .../clusterlint), part of every cluster's assessment when a rollout plans its waves,
// reads the cluster and changes nothing.
func (e *env) assertUnchanged(name, id string) {
	e.t.Helper()
	for _, u := range e.do.Upgrades() {
		if u.ClusterName == name {
			e.t.Errorf("%s was sent an upgrade to %s", name, u.To)
		}
	}
	for _, req := range e.do.Requests("") {
		if req.Method != "GET" && req.Method != "HEAD" && strings.Contains(req.Path, id) && !strings.HasSuffix(req.Path, "/clusterlint") {
			e.t.Errorf("%s received a request that changes it: %s %s", name, req.Method, req.Path)
		}
	}
}
