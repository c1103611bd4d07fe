package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"sigs.k8s.io/yaml"
)

// testImage is the workspace image the tests name: a test binary is a development build, which
// has no default.
const testImage = "registry.example/clusterplane/workspace:test"

// manifestTree copies the example manifests of kinds (every kind's when none), without their
// stack-input forms (the same stacks), into examples/<kind>/ under a new folder under parent
// (a new temporary folder when empty), and returns that examples folder.
func manifestTree(t *testing.T, parent string, kinds ...string) string {
	t.Helper()
	if parent == "" {
		parent = t.TempDir()
	}
	if len(kinds) == 0 {
		dirs, _ := filepath.Glob(filepath.Join(examples, "*kubernetes*"))
		for _, d := range dirs {
			kinds = append(kinds, filepath.Base(d))
		}
	}
	out := filepath.Join(parent, "examples")
	for _, kind := range kinds {
		files, _ := filepath.Glob(filepath.Join(examples, kind, "*.yaml"))
		if err := os.MkdirAll(filepath.Join(out, kind), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".stack-input.yaml") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, kind, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// objects are the YAML documents of an export, as maps.
func objects(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(stream, "\n---\n") {
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

// What the operator's CRDs accept is checked by a real API server (e2e/pko_kube_test.go).
func TestExportPKOOfTheExamplesWritesAStackAndAnUpdatePerManifestTheSameEveryRun(t *testing.T) {
	dir := t.TempDir()
	tree := manifestTree(t, "")
	r := run(t, "", "export", "pko", "--image", testImage, tree, "--drift-check", "-d", dir)
	if r.code != exitcode.OK {
		t.Fatalf("export pko examples/ = %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) < 10 {
		t.Fatalf("%d files exported, want one per example manifest", len(files))
	}
	kinds := map[string]int{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objects(t, string(data)) {
			kinds[o["kind"].(string)]++
		}
	}
	// One file holds what the namespace needs; every other a Stack and its Update.
	if kinds["Stack"] != len(files)-1 || kinds["Update"] != len(files)-1 || kinds["ServiceAccount"] != 1 || kinds["ClusterRoleBinding"] != 1 {
		t.Errorf("kinds %v, want a Stack and an Update per file, and the namespace's ServiceAccount and binding", kinds)
	}
	again := run(t, "", "export", "pko", "--image", testImage, tree, "--drift-check")
	once := run(t, "", "export", "pko", "--image", testImage, tree, "--drift-check")
	if again.stdout != once.stdout || again.code != 0 {
		t.Error("two exports of the same manifests differ")
	}
}

// Promise: pko-export-holds-nothing-secret
// Promise: pko-token-never-in-the-stacks-configuration
func TestExportPKONeverHoldsATokenAPassphraseOrAKubeconfig(t *testing.T) {
	const token, passphrase = "dop_v1_export-test-token", "export-test-passphrase"
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", passphrase)
	r := runWithEnv(t, map[string]string{"DIGITALOCEAN_TOKEN": token, "CIVO_TOKEN": token}, "export", "pko", "--image", testImage, manifestTree(t, ""), "--drift-check", "--drift-schedule", "@daily")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, secret := range []string{token, passphrase, "client-key-data", "apiVersion: v1\nclusters", "apiToken"} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	for _, ref := range []string{"PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "DIGITALOCEAN_TOKEN", "CIVO_TOKEN"} {
		if !strings.Contains(r.stdout, ref+":\n      secret:") {
			t.Errorf("the export does not take %s from the Secret", ref)
		}
	}
	// A stack input with a token is refused naming the field, and the token is not printed.
	withToken := strings.Replace(readExample(t, "digitaloceankubernetescluster/minimal.stack-input.yaml"), "providerConfig: {}",
		"providerConfig:\n  apiToken: "+token, 1)
	file := filepath.Join(writeFiles(t, map[string]string{"in.yaml": withToken}), "in.yaml")
	r = run(t, "", "export", "pko", "--image", testImage, file)
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "providerConfig.apiToken is set: an export never holds a token") ||
		strings.Contains(r.stdout+r.stderr, token) {
		t.Errorf("export of a stack input with a token = %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Inside the sandbox too the export says its own reason: the sandbox's (a deploy reaches only
	// its loopback clouds) is not the one that applies to writing files.
	t.Setenv(cloudfacts.SandboxEnv, t.TempDir())
	r = run(t, "", "export", "pko", "--image", testImage, file)
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "an export never holds a token") || strings.Contains(r.stderr, "sandbox") {
		t.Errorf("export of a stack input with a token inside the sandbox = %d, want the export's reason alone:\n%s", r.code, r.stderr)
	}
}

func TestAPoolsStackWaitsForItsClustersAndAProtectedClusterIsNeverDestroyedOnFinalize(t *testing.T) {
	r := run(t, "", "export", "pko", "--image", testImage, manifestTree(t, "", "digitaloceankubernetescluster", "digitaloceankubernetesnodepool"))
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	stacks := map[string]map[string]any{}
	for _, o := range objects(t, r.stdout) {
		if o["kind"] != "Stack" {
			continue
		}
		stacks[o["metadata"].(map[string]any)["name"].(string)] = o["spec"].(map[string]any)
	}
	pool := stacks["do-pool-platform-ams3-batch-prod"]
	if pool == nil || pool["prerequisites"] == nil || pool["prerequisites"].([]any)[0].(map[string]any)["name"] != "do-cluster-platform-ams3-prod" {
		t.Errorf("the pool referencing platform-ams3-prod: %v", pool)
	}
	if stacks["do-cluster-platform-ams3-prod"]["destroyOnFinalize"] != false || stacks["do-pool-dev-fra1-workers"]["destroyOnFinalize"] != true {
		t.Error("a protected cluster's Stack destroys on finalize, or a pool's does not")
	}
	if got := stacks["do-cluster-dev-fra1"]["stack"]; got != "organization/digitaloceankubernetescluster/dev-fra1" {
		t.Errorf("stack %v, want the stack clusterplane up deploys", got)
	}
}

func TestStackNamesAreAtMostFortyTwoCharactersAndNeverShared(t *testing.T) {
	long := strings.Replace(readExample(t, "digitaloceankubernetescluster/minimal.yaml"), "name: dev-fra1",
		"name: a-very-long-cluster-name-for-the-fra1-region\n  env: production", 1)
	longer := strings.Replace(long, "name: a-very-long-cluster-name-for-the-fra1-region", "name: a-very-long-cluster-name-for-the-fra1-regions", 1)
	dir := writeFiles(t, map[string]string{"a.yaml": long, "b.yaml": longer})
	r := run(t, "", "export", "pko", "--image", testImage, dir)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	names := map[string]bool{}
	for _, o := range objects(t, r.stdout) {
		if o["kind"] != "Stack" {
			continue
		}
		name := o["metadata"].(map[string]any)["name"].(string)
		if len(name) > 42 || names[name] {
			t.Errorf("Stack name %q: longer than 42 or shared", name)
		}
		names[name] = true
	}
	if len(names) != 2 {
		t.Errorf("names %v, want two", names)
	}
}

// runWithEnv runs clusterplane with the variables in env set (run clears the credentials).
func runWithEnv(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr strings.Builder
	for k, v := range env {
		t.Setenv(k, v)
	}
	code := newApp(programs, strings.NewReader(""), &stdout, &stderr).run(args)
	return result{code, stdout.String(), stderr.String()}
}

func TestExportPKOIntoAFolderReplacesASymbolicLinkThereRatherThanWritingWhereItPoints(t *testing.T) {
	dir := t.TempDir()
	first := run(t, "", "export", "pko", "--image", testImage, filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml"), "-d", dir)
	files, _ := filepath.Glob(filepath.Join(dir, "do-*.yaml"))
	if first.code != exitcode.OK || len(files) != 1 {
		t.Fatalf("export pko = %d, %d files: %s", first.code, len(files), first.stderr)
	}
	exported, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// The same file name, now a link to a file outside the folder.
	outside := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(outside, []byte("not yours\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, files[0]); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "export", "pko", "--image", testImage, filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml"), "-d", dir)
	if r.code != exitcode.OK {
		t.Fatalf("export pko = %d: %s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(outside); err != nil || string(data) != "not yours\n" {
		t.Fatalf("the file the link pointed at now holds %q (%v)", data, err)
	}
	info, err := os.Lstat(files[0])
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 {
		t.Fatalf("%s is %v (%v), want a regular file, mode 0644", files[0], info.Mode(), err)
	}
	if data, _ := os.ReadFile(files[0]); string(data) != string(exported) {
		t.Fatalf("the second export wrote other resources:\n%s", data)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
