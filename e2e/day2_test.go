//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/digitalocean/godo"
)

func TestAReplacingChangeOfAProtectedClusterFailsAtPreviewAndReplacesOnceUnprotected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("p", "digitaloceankubernetescluster")
	e.must(dir, nil, "stack", "init", "dev")
	manifest := example(t, "digitaloceankubernetescluster/minimal.yaml")
	input := func(text string) []string { return []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", text)} }
	e.must(dir, input(manifest), "up", "--yes", "--skip-preview")
	before := e.doCluster("dev-fra1").ID

	moved := strings.Replace(manifest, "region: fra1", "region: ams3", 1)
	r := e.pulumi(dir, input(moved), "preview")
	if r.err == nil || !strings.Contains(r.stdout+r.stderr, "protect") {
		t.Fatalf("preview of a region change of a protected cluster: want the engine's refusal: %s", r)
	}
	unprotected := withSpec(manifest, "  deletionProtection: false\n")
	e.must(dir, input(unprotected), "up", "--yes", "--skip-preview")
	e.must(dir, input(withSpec(moved, "  deletionProtection: false\n")), "up", "--yes", "--skip-preview")
	if after := e.doCluster("dev-fra1"); after.ID == before || after.RegionSlug != "ams3" {
		t.Errorf("the cluster is %s in %s: want it replaced by one in ams3", after.ID, after.RegionSlug)
	}
	if _, ok := e.do.Cluster(before); ok {
		t.Errorf("the replaced cluster %s is still there", before)
	}
	e.must(dir, input(withSpec(moved, "  deletionProtection: false\n")), "destroy", "--yes", "--skip-preview")
}

func TestDriftTheCloudOwnsIsRefreshedAndNotUndoneWhileAConsoleEditIsPutBack(t *testing.T) {
	t.Parallel()
	t.Run("the autoscaler's node count", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.seedExamples()
		dir, input := e.stack("digitaloceankubernetesnodepool", example(t, "digitaloceankubernetesnodepool/autoscaling.yaml"))
		e.must(dir, input, "up", "--yes", "--skip-preview")
		pool := e.doPool(doClusterID, "apps")
		e.do.EditPool(doClusterID, pool.ID, func(p *godo.KubernetesNodePool) { p.Count = 5 })
		e.must(dir, input, "preview", "--refresh", "--expect-no-changes")
		e.must(dir, input, "up", "--yes", "--refresh", "--skip-preview")
		if got := e.doPool(doClusterID, "apps").Count; got != 5 {
			t.Errorf("node count %d after up, want the autoscaler's 5", got)
		}
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
	t.Run("an auto-upgrade patch", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  autoUpgrade: true\n  deletionProtection: false\n")
		dir, input := e.stack("digitaloceankubernetescluster", manifest)
		e.must(dir, input, "up", "--yes", "--skip-preview")
		e.do.EditCluster(e.doCluster("dev-fra1").ID, func(c *godo.KubernetesCluster) { c.VersionSlug = "1.31.9-do.2" })
		e.must(dir, input, "preview", "--refresh", "--expect-no-changes")
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
	t.Run("a console edit of the tags", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")
		dir, input := e.stack("digitaloceankubernetescluster", manifest)
		e.must(dir, input, "up", "--yes", "--skip-preview")
		id := e.doCluster("dev-fra1").ID
		want := e.doCluster("dev-fra1").Tags
		e.do.EditCluster(id, func(c *godo.KubernetesCluster) { c.Tags = []string{"edited-in-the-console"} })
		if r := e.pulumi(dir, input, "preview", "--refresh", "--expect-no-changes"); r.err == nil {
			t.Fatalf("preview after a console edit: want a change that puts it back: %s", r)
		}
		e.must(dir, input, "up", "--yes", "--refresh", "--skip-preview")
		got, wanted := e.doCluster("dev-fra1").Tags, want
		slices.Sort(got)
		slices.Sort(wanted)
		if g, w := strings.Join(got, ","), strings.Join(wanted, ","); g != w {
			t.Errorf("tags after up %s, want the manifest's %s back", g, w)
		}
		e.must(dir, input, "destroy", "--yes", "--skip-preview")
	})
}

func TestANodePoolStackReadsItsClusterStacksOutputThroughAReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	cluster := e.project("cluster", "digitaloceankubernetescluster")
	// The naming of docs/manifests.md (References between stacks): <name>-<env> in the project of
	// the cluster's kind.
	e.must(cluster, nil, "stack", "init", "platform-ams3-prod")
	manifest := withSpec(example(t, "digitaloceankubernetescluster/production.yaml"), "  deletionProtection: false\n")
	e.must(cluster, []string{"STACK_INPUT_FILE=" + e.write("cluster.yaml", manifest)}, "up", "--yes", "--skip-preview")
	clusterID := e.outputs(cluster)["cluster_id"]

	pool := e.project("pool", "digitaloceankubernetesnodepool")
	e.must(pool, nil, "stack", "init", "workers")
	input := []string{"STACK_INPUT_FILE=" + filepath.Join(root, "examples", "digitaloceankubernetesnodepool", "cluster-by-reference.yaml")}
	e.must(pool, input, "up", "--yes", "--skip-preview")
	if id, _ := clusterID.(string); len(e.do.Pools(id)) != 2 {
		t.Errorf("the cluster stack's cluster %v has pools %v, want its default pool and the pool stack's", clusterID, e.do.Pools(id))
	}
	e.must(pool, input, "destroy", "--yes", "--skip-preview")
	e.must(cluster, []string{"STACK_INPUT_FILE=" + filepath.Join(e.dir, "cluster.yaml")}, "destroy", "--yes", "--skip-preview")
}

func TestAStackCreatedWithThePreComponentNamesIsUpdatedInPlaceNothingReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("p", "digitaloceankubernetescluster")
	e.must(dir, nil, "stack", "init", "dev")
	old := e.goProject("old", "digitaloceankubernetescluster", filepath.Join(root, "e2e", "testdata", "oldnames"))
	// The same stack, first deployed by the old program.
	e.must(old, nil, "stack", "select", "dev")
	e.must(old, nil, "up", "--yes", "--skip-preview")
	before := e.doCluster("dev-fra1").ID
	e.do.Reset()

	input := []string{"STACK_INPUT_FILE=" + filepath.Join(root, "examples", "digitaloceankubernetescluster", "minimal.yaml")}
	for _, s := range e.previewSteps(dir, input) {
		if strings.Contains(s.URN, "::digitalocean:") && s.Op != "same" && s.Op != "update" && s.Op != "refresh" {
			t.Errorf("%s would %s: want it kept through its alias", s.URN, s.Op)
		}
	}
	e.must(dir, input, "up", "--yes", "--skip-preview")
	if after := e.doCluster("dev-fra1").ID; after != before || len(e.do.Requests("POST"))+len(e.do.Requests("DELETE")) > 0 {
		t.Errorf("the cluster's id changed from %v to %v, or DigitalOcean received a create or delete: it was replaced", before, after)
	}
}

// Promise: e2e-registry-integration-refused-at-preview
func TestRegistryIntegrationWithoutARegistryIsRefusedAtPreviewBeforeAnythingExists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  registryIntegration: true\n  deletionProtection: false\n")
	dir, input := e.stack("digitaloceankubernetescluster", manifest)
	e.do.Account().SetRegistry(false)
	r := e.pulumi(dir, input, "preview")
	if r.err == nil || !strings.Contains(r.stdout+r.stderr, "spec.registryIntegration: the DigitalOcean account has no container registry") {
		t.Fatalf("preview without a registry: want the module's refusal: %s", r)
	}
	if n := len(e.do.Requests("POST")); n > 0 {
		t.Errorf("a refused preview sent %d creates", n)
	}
	e.do.Account().SetRegistry(true)
	e.must(dir, input, "up", "--yes", "--skip-preview")
	if !e.doCluster("dev-fra1").RegistryEnabled {
		t.Errorf("the cluster's registry integration is off after up")
	}
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

// A label added in the cloud to a DigitalOcean pool whose manifest has none is a drift no up puts
// back: the provider's API client leaves an empty label map out of the update (the effects
// table's removal of spec.labels, held by the effects walk). drift names the key and says so,
// never that up would update it; refresh and up on the real provider leave the label, as said.
// Promise: up-label-that-stays-ends-drifted
func TestDriftSaysALabelAddedInTheCloudIsOneNoUpPutsBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file, pool := e.deployedExamplePool()
	e.do.EditPool(doClusterID, pool.ID, func(p *godo.KubernetesNodePool) { p.Labels = map[string]string{"sneaky": "yes"} })

	r, code := e.clusterplane("drift", file)
	if code != 3 || !strings.Contains(r.stdout, "sneaky") || !strings.Contains(r.stdout, "no up can put it back") ||
		strings.Contains(r.stdout, "would update") || !strings.Contains(r.stdout, "empty label map") {
		t.Errorf("drift of a label added in the cloud = %d, want 3 naming the key and saying no up puts it back: %s", code, r)
	}
	// What drift says holds on the real provider: refresh, then up, and the label is still there.
	// The up, which reads the cloud first, says so too, with the key, and not that it is done.
	if r, code := e.clusterplane("refresh", file); code != 0 {
		t.Fatalf("refresh = %d: %s", code, r)
	}
	r, code = e.clusterplane("up", file, "--yes")
	if code != 3 || !strings.Contains(r.stdout, "drifted: ") || !strings.Contains(r.stdout, `still differs spec.labels: the cloud has {"sneaky":"yes"}`) ||
		!strings.Contains(r.stdout, "empty label map") || strings.Contains(r.stdout, "done:") {
		t.Errorf("up over a label added in the cloud = %d, want 3, drifted, naming the key and why, never done: %s", code, r)
	}
	if got := e.doPool(doClusterID, "workers").Labels["sneaky"]; got != "yes" {
		t.Errorf("after refresh and up the cloud's label sneaky is %q: drift said no up puts it back", got)
	}
}

// A plain up reads the cloud first: a pool resized in the cloud is put back, and the report names
// the field and the cost's real change, from what the cloud had. --refresh=false trusts the state
// of an unchanged manifest and leaves the cloud alone.
func TestUpPutsBackAPoolResizedInTheCloudAndSaysWhatItCosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file, pool := e.deployedExamplePool()
	e.do.EditPool(doClusterID, pool.ID, func(p *godo.KubernetesNodePool) { p.Count = 6 })

	r, code := e.clusterplane("up", file, "--yes", "--refresh=false")
	if got := e.doPool(doClusterID, "workers").Count; code != 0 || got != 6 || strings.Contains(r.stdout, "put back") {
		t.Errorf("up --refresh=false = %d, the cloud's pool at %d nodes: want 0, the cloud's 6 left alone, nothing put back: %s", code, got, r)
	}
	r, code = e.clusterplane("up", file, "--yes")
	// The cost is from the cloud's 6 nodes to the manifest's 2, whatever the sizes API's price.
	costs := regexp.MustCompile(`monthly cost: -\$[0-9.]+/month \(\$([0-9.]+) → \$([0-9.]+)/month`).FindStringSubmatch(r.stdout)
	if code != 0 || !strings.Contains(r.stdout, "put back spec.nodeCount: 6 → 2") || costs == nil || costs[1] != fmt.Sprintf("%.2f", 3*mustFloat(t, costs[2])) {
		t.Errorf("up over a pool resized in the cloud = %d, want 0 naming spec.nodeCount 6 → 2 and the cost from 6 nodes to 2: %s", code, r)
	}
	if got := e.doPool(doClusterID, "workers").Count; got != 2 {
		t.Errorf("after up the cloud's pool has %d nodes, want the manifest's 2", got)
	}
}

// mustFloat reads a decimal the report printed.
func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("read %q as a number: %v", s, err)
	}
	return f
}

// Emptying a DigitalOcean pool's labels is refused (the provider never sends an empty map), and
// the refusal says to remove them in the cloud: once that is done, the manifest without them
// deploys, on the real provider, as what is so.
func TestLabelsRemovedInTheCloudAsTheRefusalAdvisesLetTheManifestWithoutThemDeploy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	text := example(t, "digitaloceankubernetesnodepool/minimal.yaml")
	file := e.write("pool.yaml", text+"  labels: {team: web}\n")
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	e.write("pool.yaml", text)
	if r, code := e.clusterplane("preview", file); code != 3 || !strings.Contains(r.stdout, "refused spec.labels") {
		t.Errorf("preview emptying the labels = %d, want 3, refused: %s", code, r)
	}
	pool := e.doPool(doClusterID, "workers")
	e.do.EditPool(doClusterID, pool.ID, func(p *godo.KubernetesNodePool) { p.Labels = nil })
	for _, cmd := range [][]string{{"preview", file}, {"up", file, "--yes"}, {"drift", file}} {
		if r, code := e.clusterplane(cmd...); code != 0 {
			t.Errorf("%s after the labels were removed in the cloud = %d, want 0: %s", cmd[0], code, r)
		}
	}
}

// deployedExamplePool deploys the minimal DigitalOcean pool example into the seeded cluster and
// returns its file and the pool as the cloud holds it.
func (e *env) deployedExamplePool() (string, godo.KubernetesNodePool) {
	e.t.Helper()
	e.seedExamples()
	file := e.write("pool.yaml", example(e.t, "digitaloceankubernetesnodepool/minimal.yaml"))
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 {
		e.t.Fatalf("up = %d: %s", code, r)
	}
	return file, e.doPool(doClusterID, "workers")
}
