//go:build e2e

package e2e_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// A replacement is never confirmed by --yes, on the real engine and each cloud's real provider
// plugin: a pool's size change without a rollout block (which both clouds carry out only by
// replacing the pool) is refused by up --yes and by up --plan of a reviewed plan, nothing deleted
// in the loopback cloud, the refusal naming both ways out; --allow-replace naming another
// manifest changes nothing; --allow-replace=KIND/NAME replaces exactly that pool.
// Promise: up-refuses-unasked-replacement
// Promise: up-replacement-refusal-names-the-way-out
func TestUpWithYesRefusesAPoolsReplacementUntilTheRunNamesIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, example, kind, from, to string
		// poolID is the pool's id in the loopback cloud now ("" when it has none).
		poolID func(e *env) string
		// deletes counts the pool deletes the loopback cloud has answered.
		deletes func(e *env) int
	}{
		{"a DigitalOcean pool", "digitaloceankubernetesnodepool/minimal.yaml", "DigitalOceanKubernetesNodePool",
			"size: s-4vcpu-8gb", "size: s-8vcpu-16gb",
			func(e *env) string { p, _ := e.do.PoolNamed(doClusterID, "workers"); return p.ID },
			func(e *env) int { return countPaths(e.do.Requests("DELETE"), "/node_pools/") }},
		{"a Civo pool", "civokubernetesnodepool/minimal.yaml", "CivoKubernetesNodePool",
			"size: g4s.kube.medium", "size: g4s.kube.large",
			func(e *env) string { p, _ := e.civo.Pool(civoClusterID, "workers"); return p.ID },
			func(e *env) int { return countPaths(e.civo.Requests("DELETE"), "/pools/") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedExamples()
			text := example(t, tt.example)
			pool := e.write("pool.yaml", text)
			e.ok("up", pool, "--yes")
			before, deletes := tt.poolID(e), tt.deletes(e)
			resized := e.write("pool.yaml", strings.Replace(text, tt.from, tt.to, 1))
			named := "--allow-replace=" + tt.kind + "/dev-fra1-workers"

			refused := func(args ...string) {
				t.Helper()
				r, code := e.clusterplane(args...)
				if code != 3 || !strings.Contains(r.stdout+r.stderr, "rollout") || !strings.Contains(r.stdout+r.stderr, named) {
					t.Errorf("clusterplane %s = %d, want 3 naming rollout and %s: %s", strings.Join(args, " "), code, named, r)
				}
				if now := tt.poolID(e); now != before || tt.deletes(e) != deletes {
					t.Fatalf("clusterplane %s replaced the pool: its id %s, was %s", strings.Join(args, " "), now, before)
				}
			}
			refused("up", resized, "--yes")
			refused("up", resized, "--yes", "--allow-replace="+tt.kind+"/another-pool")
			plan := e.dir + "/plan.json"
			if r, code := e.clusterplane("preview", resized, "--save-plan", plan); code != 3 {
				t.Errorf("preview --save-plan of a replacement = %d, want 3: %s", code, r)
			}
			refused("up", "--plan", plan)

			if r, code := e.clusterplane("up", resized, "--yes", named); code != 0 {
				t.Fatalf("up %s = %d, want 0: %s", named, code, r)
			}
			// A Civo pool's id is its name, kept by its replacement: the delete tells.
			if tt.deletes(e) == deletes || tt.poolID(e) == "" {
				t.Errorf("up %s did not replace the pool: no delete reached the cloud, or no pool is left", named)
			}
		})
	}
}

// countPaths counts the requests whose path holds part.
func countPaths(requests []fakecloud.Request, part string) int {
	n := 0
	for _, r := range requests {
		if strings.Contains(r.Path, part) {
			n++
		}
	}
	return n
}
