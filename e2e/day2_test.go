//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"

	"github.com/clusterplane/clusterplane/internal/standin"
	"path/filepath"
	"strings"
	"testing"
)

// editCloud changes, behind the engine's back, the output at path (dots between property names)
// of every stand-in resource whose type ends in typ; the stand-in's Read reports the inputs it
// governs as changed too.
func editCloud(t *testing.T, cloud, typ, path string, value any) {
	t.Helper()
	edited := 0
	for id, r := range resources(t, cloud, typ) {
		r.Set(path, value)
		if err := standin.WriteResource(cloud, id, r); err != nil {
			t.Fatal(err)
		}
		edited++
	}
	if edited == 0 {
		t.Fatalf("the stand-in cloud has no %s", typ)
	}
}

// cloudValue reads an output of the one stand-in resource whose type ends in typ.
func cloudValue(t *testing.T, cloud, typ, path string) any {
	t.Helper()
	for _, r := range resources(t, cloud, typ) {
		return r.Get(path)
	}
	t.Fatalf("the stand-in cloud has no %s", typ)
	return nil
}

// resources are the stand-in cloud's resources whose type ends in typ ("" for all), by id.
func resources(t *testing.T, cloud, typ string) map[string]standin.Resource {
	t.Helper()
	all, err := standin.ReadCloud(cloud)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range all {
		if !strings.HasSuffix(r.Type, typ) {
			delete(all, id)
		}
	}
	return all
}

func TestAReplacingChangeOfAProtectedClusterFailsAtPreviewAndReplacesOnceUnprotected(t *testing.T) {
	e := newEnv(t)
	dir := e.project("p", "digitaloceankubernetescluster")
	e.must(dir, nil, "stack", "init", "dev")
	manifest := example(t, "digitaloceankubernetescluster/minimal.yaml")
	input := func(text string) []string { return []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", text)} }
	e.must(dir, input(manifest), "up", "--yes", "--skip-preview")
	before := cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "id")

	moved := strings.Replace(manifest, "region: fra1", "region: ams3", 1)
	r := e.pulumi(dir, input(moved), "preview")
	if r.err == nil || !strings.Contains(r.stdout+r.stderr, "protect") {
		t.Fatalf("preview of a region change of a protected cluster: want the engine's refusal: %s", r)
	}
	unprotected := withSpec(manifest, "  deletionProtection: false\n")
	e.must(dir, input(unprotected), "up", "--yes", "--skip-preview")
	e.must(dir, input(withSpec(moved, "  deletionProtection: false\n")), "up", "--yes", "--skip-preview")
	if after := cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "id"); after == before {
		t.Errorf("the cluster kept id %v: want it replaced", after)
	}
	e.must(dir, input(withSpec(moved, "  deletionProtection: false\n")), "destroy", "--yes", "--skip-preview")
}

func TestDriftTheCloudOwnsIsRefreshedAndNotUndoneWhileAConsoleEditIsPutBack(t *testing.T) {
	t.Run("the autoscaler's node count", func(t *testing.T) {
		e := newEnv(t)
		e.seed("digitalocean:index/kubernetesCluster:KubernetesCluster", doClusterID)
		dir, input := e.stack("digitaloceankubernetesnodepool", example(t, "digitaloceankubernetesnodepool/autoscaling.yaml"))
		e.must(dir, input, "up", "--yes", "--skip-preview")
		editCloud(t, e.cloud, "kubernetesNodePool:KubernetesNodePool", "nodeCount", 5)
		e.must(dir, input, "preview", "--refresh", "--expect-no-changes")
		e.must(dir, input, "up", "--yes", "--refresh", "--skip-preview")
		if got := cloudValue(t, e.cloud, "kubernetesNodePool:KubernetesNodePool", "nodeCount"); got != 5.0 {
			t.Errorf("node count %v after up, want the autoscaler's 5", got)
		}
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
	t.Run("an auto-upgrade patch", func(t *testing.T) {
		e := newEnv(t)
		manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  autoUpgrade: true\n  deletionProtection: false\n")
		dir, input := e.stack("digitaloceankubernetescluster", manifest)
		e.must(dir, input, "up", "--yes", "--skip-preview")
		editCloud(t, e.cloud, "kubernetesCluster:KubernetesCluster", "version", "1.31.9-do.2")
		e.must(dir, input, "preview", "--refresh", "--expect-no-changes")
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
	t.Run("a console edit of the tags", func(t *testing.T) {
		e := newEnv(t)
		manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")
		dir, input := e.stack("digitaloceankubernetescluster", manifest)
		e.must(dir, input, "up", "--yes", "--skip-preview")
		want := cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "tags")
		editCloud(t, e.cloud, "kubernetesCluster:KubernetesCluster", "tags", []any{"edited-in-the-console"})
		if r := e.pulumi(dir, input, "preview", "--refresh", "--expect-no-changes"); r.err == nil {
			t.Fatalf("preview after a console edit: want a change that puts it back: %s", r)
		}
		e.must(dir, input, "up", "--yes", "--refresh", "--skip-preview")
		got, _ := json.Marshal(cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "tags"))
		wanted, _ := json.Marshal(want)
		if string(got) != string(wanted) {
			t.Errorf("tags after up %s, want the manifest's %s back", got, wanted)
		}
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
}

func TestANodePoolStackReadsItsClusterStacksOutputThroughAReference(t *testing.T) {
	e := newEnv(t)
	cluster := e.project("cluster", "digitaloceankubernetescluster")
	// The README's naming: <name>-<env> in the project of the cluster's kind.
	e.must(cluster, nil, "stack", "init", "platform-ams3-prod")
	manifest := withSpec(example(t, "digitaloceankubernetescluster/production.yaml"), "  deletionProtection: false\n")
	e.must(cluster, []string{"STACK_INPUT_FILE=" + e.write("cluster.yaml", manifest)}, "up", "--yes", "--skip-preview")
	clusterID := e.outputs(cluster)["cluster_id"]

	pool := e.project("pool", "digitaloceankubernetesnodepool")
	e.must(pool, nil, "stack", "init", "workers")
	input := []string{"STACK_INPUT_FILE=" + filepath.Join(root, "examples", "digitaloceankubernetesnodepool", "cluster-by-reference.yaml")}
	e.must(pool, input, "up", "--yes", "--skip-preview")
	if got := cloudValue(t, e.cloud, "kubernetesNodePool:KubernetesNodePool", "clusterId"); got != clusterID {
		t.Errorf("the pool joined cluster %v, want the cluster stack's %v", got, clusterID)
	}
	e.must(pool, input, "destroy", "--yes", "--skip-preview")
	e.must(cluster, []string{"STACK_INPUT_FILE=" + filepath.Join(e.dir, "cluster.yaml")}, "destroy", "--yes", "--skip-preview")
}

func TestAStackCreatedWithThePreComponentNamesIsUpdatedInPlaceNothingReplaced(t *testing.T) {
	e := newEnv(t)
	dir := e.project("p", "digitaloceankubernetescluster")
	e.must(dir, nil, "stack", "init", "dev")
	old := e.goProject("old", "digitaloceankubernetescluster", filepath.Join(root, "e2e", "testdata", "oldnames"))
	// The same stack, first deployed by the old program.
	e.must(old, nil, "stack", "select", "dev")
	e.must(old, nil, "up", "--yes", "--skip-preview")
	before := cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "id")

	input := []string{"STACK_INPUT_FILE=" + filepath.Join(root, "examples", "digitaloceankubernetescluster", "minimal.yaml")}
	for _, s := range e.previewSteps(dir, input) {
		if strings.Contains(s.URN, "::digitalocean:") && s.Op != "same" && s.Op != "update" && s.Op != "refresh" {
			t.Errorf("%s would %s: want it kept through its alias", s.URN, s.Op)
		}
	}
	e.must(dir, input, "up", "--yes", "--skip-preview")
	if after := cloudValue(t, e.cloud, "kubernetesCluster:KubernetesCluster", "id"); after != before {
		t.Errorf("the cluster's id changed from %v to %v: it was replaced", before, after)
	}
}

func TestRegistryIntegrationWithoutARegistryIsRefusedAtPreviewBeforeAnythingExists(t *testing.T) {
	e := newEnv(t)
	manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  registryIntegration: true\n  deletionProtection: false\n")
	dir, input := e.stack("digitaloceankubernetescluster", manifest)
	e.registry.Store(http.StatusNotFound)
	r := e.pulumi(dir, input, "preview")
	if r.err == nil || !strings.Contains(r.stdout+r.stderr, "spec.registryIntegration: the DigitalOcean account has no container registry") {
		t.Fatalf("preview without a registry: want the module's refusal: %s", r)
	}
	if left := resources(t, e.cloud, ""); len(left) > 0 {
		t.Errorf("a refused preview created %v", left)
	}
	e.registry.Store(http.StatusOK)
	e.must(dir, input, "up", "--yes", "--skip-preview")
	e.must(dir, input, "destroy", "--yes", "--skip-preview")
}

// step is one step of `pulumi preview --json`.
type step struct {
	Op  string `json:"op"`
	URN string `json:"urn"`
}

// previewSteps runs `pulumi preview --json` in dir and returns its steps.
func (e *env) previewSteps(dir string, extra []string) []step {
	e.t.Helper()
	r := e.must(dir, extra, "preview", "--json")
	var preview struct {
		Steps []step `json:"steps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &preview); err != nil {
		e.t.Fatalf("preview --json: %v\n%s", err, r.stdout)
	}
	return preview.Steps
}
