//go:build e2e

package e2e_test

import (
	"strings"
	"testing"
)

// A rotation up does not carry out (a cluster's default pool, a Civo pool) is planned by diff and
// preview, and up stops before the engine, which would replace the pool (or, through the default
// pool, the cluster) instead. A DigitalOcean pool's rotation up carries out: rotateup_test.go.
func TestARotationTheManifestAllowsIsPlannedAndTheEngineNeverReplacesThePoolMeanwhile(t *testing.T) {
	t.Parallel()
	t.Run("the DigitalOcean default pool of a protected cluster", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		text := example(t, "digitaloceankubernetescluster/minimal.yaml")
		manifest := e.write("cluster.yaml", text)
		if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
			t.Fatalf("up = %d: %s", code, r)
		}
		before := e.doCluster("dev-fra1")
		resized := e.write("resized.yaml", strings.Replace(text, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb\n    rollout: {strategy: ROTATE}", 1))
		if r, code := e.clusterplane("diff", manifest, resized); code != 0 || !strings.Contains(r.stdout, "terraform:default-node-pool") {
			t.Errorf("diff = %d, want 0 and the default pool's tag handed over: %s", code, r)
		}
		if r, code := e.clusterplane("up", resized, "--yes"); code != 3 || !strings.Contains(r.stdout+r.stderr, "rotation planned") {
			t.Errorf("up = %d, want 3 naming the planned rotation: %s", code, r)
		}
		if after := e.doCluster("dev-fra1"); after.ID != before.ID || after.NodePools[0].Size != "s-2vcpu-4gb" {
			t.Errorf("the cluster is %s with a %s pool, want %s untouched", after.ID, after.NodePools[0].Size, before.ID)
		}
	})
}
