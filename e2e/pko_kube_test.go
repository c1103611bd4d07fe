//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// yamlObjects are the documents of a YAML stream, as JSON-like maps; comments and empty
// documents are skipped.
func yamlObjects(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split("\n"+string(data), "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// holds tells whether got holds everything want does (the server adds defaults, uid, status):
// the path of the first difference, or "".
func holds(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path
		}
		for k, v := range w {
			if d := holds(g[k], v, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path
		}
		for i := range w {
			if d := holds(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	default:
		// Through JSON both sides: YAML's integers and JSON's numbers compare equal.
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			return path
		}
		return ""
	}
}

// exportExamples exports every example manifest (not their stack-input forms: the same stacks)
// into a folder, with a drift check and schedule, into namespace ns; it returns the objects of
// each file by the file's name.
func exportExamples(t *testing.T, ns string) map[string][]map[string]any {
	t.Helper()
	dir := t.TempDir()
	tree := filepath.Join(dir, "examples")
	kindDirs, _ := filepath.Glob(filepath.Join(root, "examples", "*kubernetes*"))
	for _, kd := range kindDirs {
		files, _ := filepath.Glob(filepath.Join(kd, "*.yaml"))
		for _, f := range files {
			if strings.HasSuffix(f, ".stack-input.yaml") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(tree, filepath.Base(kd), filepath.Base(f))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := filepath.Join(dir, "pko")
	cmd := []string{"export", "pko", "--image", "registry.example/clusterplane/workspace:e2e", "-n", ns,
		"--drift-check", "--drift-schedule", "0 6 * * *", tree, "-d", out}
	bin := filepath.Join(binaries(t), "clusterplane")
	if data, err := execOutput(bin, cmd...); err != nil {
		t.Fatalf("clusterplane %s: %v\n%s", strings.Join(cmd, " "), err, data)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	exported := map[string][]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exported[filepath.Base(f)] = yamlObjects(t, data)
	}
	return exported
}

// newKubeWithPKO is a real API server with PKO v2.9.0's CRDs installed (../shared/pko); the test
// is skipped where they are absent.
func newKubeWithPKO(t *testing.T) *kube {
	t.Helper()
	crds, _ := filepath.Glob(filepath.Join(root, "..", "shared", "pko", "*.yaml"))
	if len(crds) != 4 {
		t.Skip("../shared/pko, PKO v2.9.0's CRDs, is absent (a clone without ../shared)")
	}
	k := newKube(t)
	k.installCRDs(crds)
	return k
}

func TestPKOExportOfTheExamplesIsCreatedByARealAPIServerAndItsAccountMayDoWhatTheAgentNeeds(t *testing.T) {
	t.Parallel()
	k := newKubeWithPKO(t)
	const ns = "clusterplane-e2e"
	k.must("POST", "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})

	exported := exportExamples(t, ns)
	created, updates := createEachExportedObject(t, k, exported)
	stacks := created["Stack"]
	if stacks < 10 || created["Update"] != stacks || created["ServiceAccount"] != 2 || created["ClusterRoleBinding"] != 1 ||
		created["CronJob"] != 1 || created["Role"] != 1 || created["RoleBinding"] != 1 {
		t.Fatalf("created %v, want a Stack and an Update per example, the namespace's accounts, bindings, Role and CronJob", created)
	}
	// What the CronJob does each time: create the ConfigMap's Updates, each under a new name.
	if len(updates) != stacks {
		t.Fatalf("the drift CronJob creates %d Updates for %d Stacks", len(updates), stacks)
	}
	for run := 0; run < 2; run++ {
		for _, u := range updates {
			if code, body := k.create(u); code != 201 {
				t.Fatalf("run %d: the API server refused the scheduled Update %v: %d %s", run, u["metadata"], code, body)
			}
		}
	}
	list := k.must("GET", fmt.Sprintf(resources["Update"], ns), nil)
	if n := len(list["items"].([]any)); n != 3*stacks {
		t.Errorf("%d Updates, want the export's %d and two scheduled runs' %d each", n, stacks, stacks)
	}

	// PKO's agent in the workspace pod checks the operator's token with a TokenReview and its
	// rights with a SubjectAccessReview, as the Stack's account: system:auth-delegator allows both.
	agent := []struct{ verb, group, resource string }{
		{"create", "authentication.k8s.io", "tokenreviews"},
		{"create", "authorization.k8s.io", "subjectaccessreviews"},
	}
	for _, a := range agent {
		if !k.can(ns, "clusterplane", a.verb, a.group, a.resource, "") {
			t.Errorf("the Stacks' service account may not %s %s.%s, which PKO's agent needs", a.verb, a.resource, a.group)
		}
	}
	// The drift account creates Updates in its namespace, and nothing else.
	drift := []struct {
		verb, group, resource, namespace string
		want                             bool
	}{
		{"create", "auto.pulumi.com", "updates", ns, true},
		{"get", "auto.pulumi.com", "updates", ns, false},
		{"delete", "auto.pulumi.com", "updates", ns, false},
		{"create", "auto.pulumi.com", "updates", "default", false},
		{"create", "pulumi.com", "stacks", ns, false},
		{"get", "", "secrets", ns, false},
	}
	for _, d := range drift {
		if got := k.can(ns, "clusterplane-drift", d.verb, d.group, d.resource, d.namespace); got != d.want {
			t.Errorf("the drift account may %s %s.%s in %q: %v, want %v", d.verb, d.resource, d.group, d.namespace, got, d.want)
		}
	}

	// Without the binding (removed by hand) the account loses what the agent needs: the check
	// above rests on the export's binding, not on some default.
	var binding string
	for _, o := range exported["00-clusterplane.yaml"] {
		if o["kind"] == "ClusterRoleBinding" {
			binding = o["metadata"].(map[string]any)["name"].(string)
		}
	}
	k.must("DELETE", resources["ClusterRoleBinding"]+"/"+binding, nil)
	deadline := time.Now().Add(30 * time.Second)
	for k.can(ns, "clusterplane", "create", "authentication.k8s.io", "tokenreviews", "") {
		if time.Now().After(deadline) {
			t.Fatal("the account may still create TokenReviews 30 s after its binding was removed")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Promise: pko-crds-refuse-what-the-schema-check-refuses
func TestPKOsCRDsOnARealAPIServerRefuseWhatTheOfflineSchemaCheckRefuses(t *testing.T) {
	t.Parallel()
	k := newKubeWithPKO(t)
	const ns = "default"
	var stack map[string]any
	for name, objects := range exportExamples(t, ns) {
		if strings.HasPrefix(name, "do-cluster-") {
			stack = objects[0]
			break
		}
	}
	if stack == nil {
		t.Fatal("no DigitalOcean cluster's Stack exported")
	}
	// What the operator's CRDs refuse, each refused by the server: it is the only check of them.
	tests := []struct {
		name   string
		mutate func(o map[string]any)
		says   string
	}{
		{"an unknown field in the spec", func(o map[string]any) { o["spec"].(map[string]any)["stackName"] = "x" }, `unknown field \"spec.stackName\"`},
		{"an unknown field in the workspace template", func(o map[string]any) {
			o["spec"].(map[string]any)["workspaceTemplate"].(map[string]any)["spec"].(map[string]any)["programDir"] = "/x"
		}, `unknown field \"spec.workspaceTemplate.spec.programDir\"`},
		{"a 43-character name", func(o map[string]any) { o["metadata"].(map[string]any)["name"] = strings.Repeat("a", 43) }, "42"},
		{"a boolean as a string", func(o map[string]any) { o["spec"].(map[string]any)["destroyOnFinalize"] = "false" }, "spec.destroyOnFinalize: Invalid value"},
		{"an env ref without its type", func(o map[string]any) {
			delete(o["spec"].(map[string]any)["envRefs"].(map[string]any)["PULUMI_BACKEND_URL"].(map[string]any), "type")
		}, "spec.envRefs.PULUMI_BACKEND_URL.type: Required value"},
	}
	for _, tt := range tests {
		var o map[string]any
		data, _ := json.Marshal(stack)
		_ = json.Unmarshal(data, &o)
		tt.mutate(o)
		code, body := k.create(o)
		if code == 201 || !strings.Contains(string(body), tt.says) {
			t.Errorf("%s: the API server answered %d %s, want a refusal saying %q", tt.name, code, body, tt.says)
		}
	}
	if code, body := k.create(stack); code != 201 {
		t.Errorf("the unchanged Stack: %d %s", code, body)
	}
}

// execOutput runs a program and returns what it wrote to standard output and error.
func execOutput(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}

// createEachExportedObject creates the export's objects on the API server in kubectl apply -f
// DIR's order, checks the server kept every field, and counts them by kind; updates are the
// Updates the drift CronJob's ConfigMap holds.
func createEachExportedObject(t *testing.T, k *kube, exported map[string][]map[string]any) (map[string]int, []map[string]any) {
	t.Helper()
	var names []string
	for name := range exported {
		names = append(names, name)
	}
	sort.Strings(names) // 00-clusterplane.yaml first, as kubectl apply -f DIR does
	created := map[string]int{}
	var updates []map[string]any
	for _, name := range names {
		for _, o := range exported[name] {
			code, body := k.create(o)
			if code != 201 {
				t.Fatalf("%s: the API server refused %s %v: %d %s", name, o["kind"], o["metadata"].(map[string]any)["name"], code, body)
			}
			created[o["kind"].(string)]++
			// Read back: the server kept every field the export wrote.
			md := o["metadata"].(map[string]any)
			got := k.must("GET", k.collection(o)+"/"+md["name"].(string), nil)
			if d := holds(got, o, o["kind"].(string)); d != "" {
				t.Errorf("%s: %s %s read back differs at %s", name, o["kind"], md["name"], d)
			}
			if o["kind"] == "ConfigMap" {
				updates = yamlObjects(t, []byte(o["data"].(map[string]any)["updates.yaml"].(string)))
			}
		}
	}
	return created, updates
}
