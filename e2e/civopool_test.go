//go:build e2e

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/civo/civogo"
)

// civoPool is the Civo pool manifest of the tests, its spec edited by lines.
func civoPool(spec string) string {
	return `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata:
  name: dev-fra1-workers
spec:
  nodePoolName: workers
  cluster:
    value: ` + civoClusterID + `
  region: fra1
` + spec
}

func TestACivoPoolIsScaledRelabelledClearedResizedRefreshedAndDestroyedThroughThePlugin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	dir, extra := e.stack("civokubernetesnodepool", civoPool("  size: g4s.kube.medium\n  nodeCount: 3\n  labels: {workload: apps}\n"))
	e.must(dir, extra, "up", "--yes", "--skip-preview")
	pool, ok := e.civo.Pool(civoClusterID, "workers")
	if !ok || pool.Count != 3 || pool.Labels["workload"] != "apps" {
		t.Fatalf("after the first up Civo has %+v (found %v), want 3 nodes labelled workload=apps", pool, ok)
	}

	up := func(spec string) {
		t.Helper()
		extra := []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", civoPool(spec))}
		e.must(dir, extra, "up", "--yes", "--skip-preview")
	}
	for _, step := range []struct {
		name, spec string
		check      func(body map[string]any, p civogo.KubernetesPool) bool
	}{
		{"scale to 5", "  size: g4s.kube.medium\n  nodeCount: 5\n  labels: {workload: apps}\n",
			func(b map[string]any, p civogo.KubernetesPool) bool { return b["count"] == 5.0 && p.Count == 5 }},
		{"scale to 2", "  size: g4s.kube.medium\n  nodeCount: 2\n  labels: {workload: apps}\n",
			func(b map[string]any, p civogo.KubernetesPool) bool { return b["count"] == 2.0 && p.Count == 2 }},
		{"relabel", "  size: g4s.kube.medium\n  nodeCount: 2\n  labels: {workload: batch}\n",
			func(b map[string]any, p civogo.KubernetesPool) bool {
				return b["count"] == nil && p.Labels["workload"] == "batch"
			}},
		// The program, run by the Pulumi CLI, marks the pool as clusterplane would (its stack's
		// label): clearing the manifest's labels leaves that one alone.
		{"clear the labels", "  size: g4s.kube.medium\n  nodeCount: 2\n",
			func(b map[string]any, p civogo.KubernetesPool) bool {
				labels, isMap := b["labels"].(map[string]any)
				mark, marked := labels["clusterplane.dev/stack"]
				return isMap && len(labels) == 1 && marked && mark != "" && p.Labels["workload"] == ""
			}},
	} {
		up(step.spec)
		pool, _ := e.civo.Pool(civoClusterID, "workers")
		if body := e.civo.LastBody(t, "PUT"); !step.check(body, pool) {
			t.Errorf("%s: Civo received %v and has %d nodes, labels %v", step.name, body, pool.Count, pool.Labels)
		}
		if n := len(e.civo.Requests("POST")); n != 1 || len(e.civo.Requests("DELETE")) != 0 {
			t.Fatalf("%s created or deleted a pool (%d creates)", step.name, n)
		}
	}

	// Scaled behind the stack's back: a refresh records it, and the next up puts it back.
	e.civo.Scale(civoClusterID, "workers", 4)
	e.must(dir, nil, "refresh", "--yes", "--skip-preview")
	r := e.must(dir, []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", civoPool("  size: g4s.kube.medium\n  nodeCount: 2\n"))},
		"preview", "--diff")
	if !strings.Contains(r.stdout, "nodeCount") || !strings.Contains(r.stdout, "update") {
		t.Errorf("after a refresh, the preview does not show the node count put back:\n%s", r.stdout)
	}
	up("  size: g4s.kube.medium\n  nodeCount: 2\n")
	if pool, _ := e.civo.Pool(civoClusterID, "workers"); pool.Count != 2 {
		t.Errorf("after the up Civo has %d nodes, want 2 again", pool.Count)
	}

	// A new size replaces the pool: deleted first, its name being its id.
	up("  size: g4s.kube.large\n  nodeCount: 2\n")
	if pool, _ := e.civo.Pool(civoClusterID, "workers"); pool.Size != "g4s.kube.large" || len(e.civo.Requests("DELETE")) != 1 {
		t.Errorf("after resizing Civo has %+v with %d deletes, want the large pool after one delete", pool, len(e.civo.Requests("DELETE")))
	}

	e.must(dir, extra, "destroy", "--yes", "--skip-preview")
	if _, ok := e.civo.Pool(civoClusterID, "workers"); ok {
		t.Errorf("destroy left the pool in Civo")
	}
}

func TestAPoolStackOfThePreviousReleaseIsTakenOverInPlaceNothingDeletedOrCreated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	old := e.goProject("old", "civokubernetesnodepool", filepath.Join(root, "e2e", "testdata", "civopoolv1"))
	dir := e.project("p", "civokubernetesnodepool")
	e.must(dir, nil, "stack", "init", "dev")
	e.must(old, []string{"CLUSTER_ID=" + civoClusterID}, "stack", "select", "dev")
	e.must(old, []string{"CLUSTER_ID=" + civoClusterID}, "up", "--yes", "--skip-preview")
	// The civo provider made the pool in Civo, its label its id.
	if p, ok := e.civo.Pool(civoClusterID, "workers"); !ok || p.Count != 2 {
		t.Fatalf("the previous release's program made %+v (found %v), want 2 nodes", p, ok)
	}
	e.civo.Reset()

	same := civoPool("  size: g4s.kube.medium\n  nodeCount: 2\n  labels: {workload: apps}\n")
	input := []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", same)}
	for _, s := range e.previewSteps(dir, input) {
		if s.Op != "same" && s.Op != "update" {
			t.Errorf("%s would %s: want it taken over through its alias", s.URN, s.Op)
		}
	}
	e.must(dir, input, "up", "--yes", "--skip-preview")
	if _, ok := e.civo.Pool(civoClusterID, "workers"); !ok {
		t.Errorf("the pool was deleted from Civo")
	}
	if n := len(e.civo.Requests("POST")) + len(e.civo.Requests("DELETE")); n != 0 {
		t.Errorf("Civo received %d creates or deletes; want none", n)
	}
	// From now on the plugin manages it: scaling reaches Civo.
	e.must(dir, []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml",
		civoPool("  size: g4s.kube.medium\n  nodeCount: 4\n  labels: {workload: apps}\n"))}, "up", "--yes", "--skip-preview")
	if pool, _ := e.civo.Pool(civoClusterID, "workers"); pool.Count != 4 || e.civo.LastBody(t, "PUT")["count"] != 4.0 {
		t.Errorf("after scaling the taken-over pool Civo has %d nodes, want 4", pool.Count)
	}
	outputs := e.outputs(dir)
	if outputs["node_pool_id"] == nil {
		t.Errorf("outputs %v lost node_pool_id", outputs)
	}
}

func TestClusterplaneDeploysAndScalesACivoPoolWithNoPluginButItself(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// ignoreAmbient is PULUMI_IGNORE_AMBIENT_PLUGINS: clusterplane then installs itself into
		// the Pulumi home, else it puts a link to itself first on PATH.
		ignoreAmbient string
	}{
		{"with ambient plugins ignored", "true"},
		{"with ambient plugins allowed", "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedExamples()
			// No clusterplane plugin anywhere, neither on PATH nor in the Pulumi home: clusterplane
			// must provide and serve the plugin itself.
			if err := os.RemoveAll(filepath.Join(e.dir, "home", "plugins", "resource-clusterplane-v0.0.0")); err != nil {
				t.Fatal(err)
			}
			e.vars = append(e.vars, "XDG_CACHE_HOME="+filepath.Join(e.dir, "cache"), "PULUMI_IGNORE_AMBIENT_PLUGINS="+c.ignoreAmbient)

			pool := e.write("pool.yaml", civoPool("  size: g4s.kube.medium\n  nodeCount: 3\n"))
			if r, code := e.clusterplane("up", pool, "--yes"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			if p, ok := e.civo.Pool(civoClusterID, "workers"); !ok || p.Count != 3 {
				t.Fatalf("after up Civo has %+v (found %v), want 3 nodes", p, ok)
			}
			scaled := e.write("pool.yaml", civoPool("  size: g4s.kube.medium\n  nodeCount: 5\n"))
			if r, code := e.clusterplane("preview", scaled); code != 0 || !strings.Contains(r.stdout+r.stderr, "nodeCount") {
				t.Errorf("preview of a scaled pool = %d, want 0 naming nodeCount: %s", code, r)
			}
			if r, code := e.clusterplane("up", scaled, "--yes"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			if p, _ := e.civo.Pool(civoClusterID, "workers"); p.Count != 5 {
				t.Errorf("after scaling Civo has %d nodes, want 5", p.Count)
			}
			resized := e.write("resized.yaml", civoPool("  size: g4s.kube.large\n  nodeCount: 5\n"))
			if r, code := e.clusterplane("preview", resized); code != 3 {
				t.Errorf("preview of a resized pool = %d, want 3 (a replacement): %s", code, r)
			}
			if r, code := e.clusterplane("destroy", scaled, "--yes"); code != 0 {
				t.Errorf("destroy = %d: %s", code, r)
			}
			if _, ok := e.civo.Pool(civoClusterID, "workers"); ok {
				t.Errorf("destroy left the pool in Civo")
			}
		})
	}
}

func TestClusterplaneAdoptsAnExistingCivoPoolByClusterAndNameAndRefusesOneTheManifestDisagreesWith(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	// A pool made outside any stack, e.g. in Civo's dashboard.
	e.civo.Seed(civoClusterID, civogo.KubernetesPool{ID: "workers", Size: "g4s.kube.medium", Count: 3})
	id := civoClusterID + ":workers"

	// Another size would replace the pool: it blocks. Another count is changed in place by the
	// next up, and blocks only with --exact.
	other := e.write("other.yaml", civoPool("  size: g4s.kube.large\n  nodeCount: 5\n"))
	r, code := e.clusterplane("adopt", other, "--id", id)
	if code != 3 || !strings.Contains(r.stdout, `spec.size: manifest "g4s.kube.large", live "g4s.kube.medium" (replace)`) ||
		!strings.Contains(r.stdout, "spec.nodeCount: the cloud has 3, up sends 5") {
		t.Fatalf("adopt with a disagreeing manifest = %d, want 3 listing the size and the count: %s", code, r)
	}
	scaled := e.write("scaled.yaml", civoPool("  size: g4s.kube.medium\n  nodeCount: 5\n"))
	if r, code := e.clusterplane("adopt", scaled, "--id", id, "--exact"); code != 3 || !strings.Contains(r.stdout, "spec.nodeCount: manifest 5, live 3 (update)") {
		t.Fatalf("adopt --exact with another count = %d, want 3 listing nodeCount: %s", code, r)
	}
	if len(e.civo.Requests("PUT"))+len(e.civo.Requests("POST"))+len(e.civo.Requests("DELETE")) != 0 {
		t.Fatal("a refused adopt changed the pool")
	}
	manifest := e.write("pool.yaml", civoPool("  size: g4s.kube.medium\n  nodeCount: 3\n"))
	if r, code := e.clusterplane("adopt", manifest, "--id", id); code != 0 || !strings.Contains(r.stdout, "adopted") {
		t.Fatalf("adopt = %d: %s", code, r)
	}
	if r, code := e.clusterplane("preview", manifest); code != 0 || strings.Contains(r.stdout, "update") {
		t.Errorf("preview after adopt = %d, want no change: %s", code, r)
	}
	if n := len(e.civo.Requests("POST")); n != 0 {
		t.Errorf("adopting created %d pools", n)
	}
}
