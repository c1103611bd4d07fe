//go:build e2e

package e2e_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Saved plans on the real engine and providers: a review saves the plan of a fleet (a cluster
// and a pool that reads it), and the apply applies exactly that or nothing.

// planned deploys a cluster and its pool, edits the pool from 1 node to 2 and saves the plan of
// the fleet: the manifests' files and the plan's.
func (e *env) planned() (cluster, pool, plan string) {
	e.t.Helper()
	cluster, pool = e.cluster("alpha"), e.pool("alpha-workers", "alpha")
	e.ok("up", cluster, pool, "--yes")
	e.write("alpha-workers.yaml", strings.Replace(e.read(pool), "nodeCount: 1", "nodeCount: 2", 1))
	plan = filepath.Join(e.dir, "plan.json")
	r := e.ok("preview", cluster, pool, "--save-plan", plan)
	if !strings.Contains(r.stdout, "update") {
		e.t.Fatalf("the preview does not show the pool's update: %s", r)
	}
	return cluster, pool, plan
}

// read is a file's content.
func (e *env) read(path string) string {
	e.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// poolCount is the node count of pool alpha-workers in the cloud.
func (e *env) poolCount() int {
	e.t.Helper()
	return e.doPool(e.doCluster("alpha").ID, "alpha-workers").Count
}

// refusedPlan runs up --plan and checks that it is refused, saying each of says, and that the
// cloud's pool kept its node count.
func (e *env) refusedPlan(plan string, says ...string) {
	e.t.Helper()
	r, code := e.clusterplane("up", "--plan", plan)
	if code != 3 {
		e.t.Fatalf("up --plan = %d, want 3 (refused): %s", code, r)
	}
	for _, s := range says {
		if !strings.Contains(r.stdout+r.stderr, s) {
			e.t.Errorf("up --plan does not say %q: %s", s, r)
		}
	}
	if regexp.MustCompile(`\b[1-9][0-9]* changed[,.]`).MatchString(r.stdout) {
		e.t.Errorf("a refused plan deployed a stack: %s", r)
	}
}

// Promise: saved-plan-holds-no-value
func TestASavedPlanAppliesOnAnUnchangedWorldAndHoldsNoTokenOrPassphrase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pool, plan := e.planned()
	text := e.read(plan)
	for _, secret := range append([]string{doToken, civoToken, "e2e-passphrase"}, kubeconfigMarks...) {
		if strings.Contains(text, secret) {
			t.Errorf("the plan holds %q:\n%s", secret, text)
		}
	}
	if !strings.Contains(text, "digitaloceankubernetesnodepool/alpha-workers") || !strings.Contains(text, `"nodeCount"`) {
		t.Errorf("the plan does not name the pool's stack and its changing node count:\n%s", text)
	}
	r := e.ok("up", "--plan", plan)
	// The pool's node count changes; the cluster, applied with it, had nothing to change.
	if !strings.Contains(r.stdout, "Stacks: 1 changed, 1 unchanged.") {
		t.Errorf("up --plan: %s", r)
	}
	if got := e.poolCount(); got != 2 {
		t.Errorf("the pool has %d nodes after up --plan, want the plan's 2", got)
	}
	if r, code := e.clusterplane("status", pool); code != 0 {
		t.Errorf("status after up --plan = %d: %s", code, r)
	}
}

func TestASavedPlanIsRefusedAfterAManifestEdit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pool, plan := e.planned()
	e.write("alpha-workers.yaml", strings.Replace(e.read(pool), "nodeCount: 2", "nodeCount: 3", 1))
	e.refusedPlan(plan, "alpha-workers.yaml is not the manifest reviewed: spec.nodeCount edited since",
		"not applied: the plan no longer holds for digitaloceankubernetesnodepool/alpha-workers")
	if got := e.poolCount(); got != 1 {
		t.Errorf("the pool has %d nodes after a refused plan, want 1", got)
	}
}

func TestASavedPlanIsRefusedAfterAnotherUpOfTheSameStack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pool, plan := e.planned()
	// Another operator deploys the pool's stack in between: the plan saw the update before.
	e.ok("up", pool, "--yes")
	e.refusedPlan(plan, "digitaloceankubernetesnodepool/alpha-workers", "another update landed on the stack since the plan")
}

func TestASavedPlanIsRefusedAfterAChangeMadeInTheCloud(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, plan := e.planned()
	// Someone retags the cluster through DigitalOcean's API (the loopback one): a fresh preview
	// would put the tags back, which the plan did not say.
	req, err := http.NewRequest(http.MethodPut, e.do.URL()+"/v2/kubernetes/clusters/"+e.doCluster("alpha").ID,
		bytes.NewReader([]byte(`{"name": "alpha", "tags": ["edited-through-the-api"]}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+doToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("the API edit answered %s", resp.Status)
	}
	e.refusedPlan(plan, "digitaloceankubernetescluster/alpha", "a fresh preview", "tags", "the cloud or the stack changed since")
	if got := e.poolCount(); got != 1 {
		t.Errorf("the pool has %d nodes after a refused plan, want 1", got)
	}
}
