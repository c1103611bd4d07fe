//go:build e2e

package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPolicyDeniesAChangeOnTheRealEngineBeforeAnyCloudCall holds --policy and
// CLUSTERPLANE_POLICY on the real engine: a cluster that keeps the example cost policy deploys;
// a change is judged against what the stack deployed, read from the real backend (20 → 22 nodes
// adds $48 and is kept, though $528 a month would be denied as a create); 20 → 41 nodes adds
// $504 and is denied, and the pool-size policy denies it at the field's line: each exit 1,
// without one request to the cloud.
func TestAPolicyDeniesAChangeOnTheRealEngineBeforeAnyCloudCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	policies := filepath.Join(root, "examples", "policy")
	manifest := func(nodes string) string {
		return withSpec(strings.Replace(example(t, "digitaloceankubernetescluster/minimal.yaml"), "nodeCount: 2", "nodeCount: "+nodes, 1),
			"  deletionProtection: false\n")
	}
	cluster := e.write("cluster.yaml", manifest("20"))
	if r, code := e.clusterplane("up", cluster, "--yes", "--policy", filepath.Join(policies, "cost.yaml")); code != 0 {
		t.Fatalf("up of a cluster that keeps the policy: exit %d\n%s", code, r)
	}
	// Destroyed however the test ends: the inventory of the loopback cloud is the next test's.
	t.Cleanup(func() {
		if r, code := e.clusterplane("destroy", cluster, "--yes"); code != 0 {
			t.Errorf("destroy: exit %d\n%s", code, r)
		}
	})
	e.vars = append(e.vars, "CLUSTERPLANE_POLICY="+filepath.Join(policies, "cost.yaml"))
	e.write("cluster.yaml", manifest("22"))
	if r, code := e.clusterplane("preview", cluster); code != 0 || strings.Contains(r.stderr, "denied") {
		t.Errorf("preview of 20 → 22 nodes: exit %d, want 0 and no denial\n%s", code, r)
	}

	text := manifest("41")
	e.write("cluster.yaml", text)
	kindLine := strings.Count(text[:strings.Index(text, "kind:")], "\n") + 1
	e.do.Reset()
	for _, args := range [][]string{{"preview", cluster}, {"up", cluster, "--yes"}} {
		r, code := e.clusterplane(args...)
		if want := fmt.Sprintf(`%s:%d:1: denied by policy rule "no-change-adds-more-than-500-a-month"`, cluster, kindLine); code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 1 and %q\n%s", args[0], code, want, r)
		}
		if strings.Contains(r.stderr, "at-most-1000-a-month") {
			t.Errorf("%s: $984 a month is denied as over $1000:\n%s", args[0], r)
		}
	}
	// The pool-size policy names the field's line; --policy wins over the environment.
	line := strings.Count(text[:strings.Index(text, "nodeCount: 41")], "\n") + 1
	r, code := e.clusterplane("up", cluster, "--yes", "--policy", filepath.Join(policies, "pool-size.yaml"), "-o", "json")
	if want := `"rule": "default-pools-have-at-most-20-nodes"`; code != 1 || !strings.Contains(r.stdout, want) ||
		!strings.Contains(r.stderr, fmt.Sprintf("%s:%d:5: spec.defaultNodePool.nodeCount: denied by policy rule", cluster, line)) {
		t.Errorf("up of a 41-node default pool: exit %d, want 1, the line of nodeCount and %s\n%s", code, want, r)
	}
	if requests := e.do.Requests(""); len(requests) > 0 {
		t.Errorf("a denied change reached the cloud: %v", requests)
	}
}
