//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// kinds are the four programs with the outputs docs/deploying.md lists for each.
var kinds = []struct {
	kind, example string
	outputs       []string
	protected     bool
	// pool tells a node pool kind, whose examples join clusters the test's cloud must hold.
	pool bool
}{
	{"civokubernetescluster", "civokubernetescluster/minimal.yaml",
		[]string{"api_server_endpoint", "cluster_id", "created_at", "dns_entry", "firewall_id", "kubeconfig_b64", "master_ip", "network_id"}, true, false},
	{"civokubernetesnodepool", "civokubernetesnodepool/minimal.yaml", []string{"instance_names", "node_pool_id"}, false, true},
	{"digitaloceankubernetescluster", "digitaloceankubernetescluster/minimal.yaml",
		[]string{"api_server_endpoint", "cluster_id", "cluster_urn", "default_node_pool_id", "ipv4_address", "kubeconfig",
			"kubeconfig_expires_at", "vpc_uuid"}, true, false},
	{"digitaloceankubernetesnodepool", "digitaloceankubernetesnodepool/minimal.yaml", []string{"node_ids", "node_names", "node_pool_id"}, false, true},
}

// example reads an example manifest of the repository.
func example(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "examples", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// withSpec adds lines under a manifest's `spec:` line.
func withSpec(manifest, lines string) string {
	return strings.Replace(manifest, "\nspec:\n", "\nspec:\n"+lines, 1)
}

// write writes text to a file in the test's directory and returns its path.
func (e *env) write(name, text string) string {
	e.t.Helper()
	path := filepath.Join(e.dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// Promise: e2e-programs-deploy-and-refuse-a-protected-destroy
func TestEachProgramDeploysFromAFileOrTheStackInputSettingAndIsDestroyedOnceUnprotected(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		for _, source := range []string{"file", "config"} {
			t.Run(k.kind+"/"+source, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				e.seedExamples()
				before := e.inventory()
				dir := e.project("p", k.kind)
				e.must(dir, nil, "stack", "init", "dev")
				manifest := example(t, k.example)
				var extra []string
				if source == "file" {
					extra = []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", manifest)}
				} else {
					e.must(dir, nil, "config", "set", "--secret", "stackInput", manifest)
				}
				e.must(dir, extra, "up", "--yes", "--skip-preview")
				outputs := e.outputs(dir)
				var names []string
				for name := range outputs {
					names = append(names, name)
				}
				sort.Strings(names)
				// Every stack records the manifest it deployed, as clusterplane's own do.
				want := append(slices.Clone(k.outputs), "clusterplane_generation", "clusterplane_manifest", "clusterplane_program")
				slices.Sort(want)
				if !slices.Equal(names, want) {
					t.Errorf("outputs %v, want docs/deploying.md's %v", names, want)
				}
				if k.protected {
					r := e.pulumi(dir, extra, "destroy", "--yes", "--skip-preview")
					if r.err == nil || !strings.Contains(r.stdout+r.stderr, "protected") {
						t.Fatalf("destroy of a protected cluster: want it refused by the engine: %s", r)
					}
					unprotected := withSpec(manifest, "  deletionProtection: false\n")
					if source == "file" {
						extra = []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", unprotected)}
					} else {
						e.must(dir, nil, "config", "set", "--secret", "stackInput", unprotected)
					}
					e.must(dir, extra, "up", "--yes", "--skip-preview")
				}
				e.must(dir, extra, "destroy", "--yes", "--skip-preview")
				if left := e.inventory(); left != before {
					t.Errorf("destroy left the clouds with %s, want %s as before the up", left, before)
				}
			})
		}
	}
}

// Promise: e2e-programs-deploy-and-refuse-a-protected-destroy
func TestTheExampleProgramsDeployAndDestroy(t *testing.T) {
	t.Parallel()
	t.Run("go", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.seedExamples()
		dir := e.goProject("go", "clusterplane-composition", filepath.Join(root, "examples", "go"))
		e.must(dir, nil, "stack", "init", "dev")
		e.must(dir, nil, "up", "--yes", "--skip-preview")
		outputs := e.outputs(dir)
		for _, name := range []string{"platform_kubeconfig", "edge_kubeconfig_b64"} {
			if s, _ := outputs[name].(string); s == "" {
				t.Errorf("output %s is empty: %v", name, outputs)
			}
		}
		// The example's clusters keep their default deletion protection.
		e.must(dir, nil, "state", "unprotect", "--all", "--yes")
		e.must(dir, nil, "destroy", "--yes", "--skip-preview")
	})
	t.Run("pulumi-yaml", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		dir := filepath.Join(e.dir, "yaml")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(root, "examples", "pulumi-yaml", "Pulumi.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		e.must(dir, nil, "stack", "init", "dev")
		e.must(dir, nil, "config", "set", "--secret", "digitaloceanToken", doToken)
		e.must(dir, nil, "up", "--yes", "--skip-preview")
		e.must(dir, nil, "state", "unprotect", "--all", "--yes")
		e.must(dir, nil, "destroy", "--yes", "--skip-preview")
	})
}

// nodeModules makes dir/node_modules for a TypeScript program: the packages of tools/sdkcheck
// (pinned by its lockfile; installed with `npm ci` when missing) and the Node.js SDK of the plugin,
// compiled from sdk/nodejs into the test's directory. One @pulumi/pulumi serves both, as npm
// would install it.
func (e *env) nodeModules(dir string) {
	e.t.Helper()
	packages := sdkcheckPackages(e.t)
	sdk := filepath.Join(e.dir, "sdk")
	run(e.t, root, "cp", "-r", filepath.Join(root, "sdk", "nodejs"), sdk)
	// `make sdk-nodejs` leaves its own link to the packages in the checkout's SDK folder.
	if err := os.RemoveAll(filepath.Join(sdk, "node_modules")); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(packages, filepath.Join(sdk, "node_modules")); err != nil {
		e.t.Fatal(err)
	}
	run(e.t, sdk, filepath.Join(packages, ".bin", "tsc"), "-p", "tsconfig.json")
	manifest, err := os.ReadFile(filepath.Join(sdk, "package.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	// The generator leaves the version to the publisher.
	manifest = []byte(strings.ReplaceAll(string(manifest), "${VERSION}", "0.0.0"))
	if err := os.WriteFile(filepath.Join(sdk, "bin", "package.json"), manifest, 0o644); err != nil {
		e.t.Fatal(err)
	}
	modules := linkPackages(e.t, dir)
	if err := os.Symlink(filepath.Join(sdk, "bin"), filepath.Join(modules, "@clusterplane", "clusterplane")); err != nil {
		e.t.Fatal(err)
	}
}

// sdkcheckPackages is tools/sdkcheck/node_modules, installed with `npm ci` (its lockfile pins
// @pulumi/pulumi and TypeScript) when missing.
func sdkcheckPackages(t *testing.T) string {
	t.Helper()
	sdkcheck := filepath.Join(root, "tools", "sdkcheck")
	packages := filepath.Join(sdkcheck, "node_modules")
	if _, err := os.Stat(filepath.Join(packages, "@pulumi", "pulumi")); err != nil {
		run(t, sdkcheck, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	}
	return packages
}

// linkPackages makes dir/node_modules with every package of tools/sdkcheck linked in and an empty
// @clusterplane scope for the SDK, and returns it.
func linkPackages(t *testing.T, dir string) string {
	t.Helper()
	packages := sdkcheckPackages(t)
	modules := filepath.Join(dir, "node_modules")
	if err := os.MkdirAll(filepath.Join(modules, "@clusterplane"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(packages)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		if entry.Name() == "@clusterplane" {
			continue
		}
		if err := os.Symlink(filepath.Join(packages, entry.Name()), filepath.Join(modules, entry.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return modules
}

// run runs a command that must succeed, bounded in time.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// Promise: e2e-programs-deploy-and-refuse-a-protected-destroy
func TestTheTypeScriptExampleDeploysThroughTheNodeHostTheSDKAndThePlugin(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npm is not installed, and CI must deploy the TypeScript example (make check-sdks needs npm too)")
		}
		t.Skip("npm is not installed: the TypeScript example is not deployed")
	}
	e := newEnv(t)
	dir := e.typeScriptExample(t)
	e.nodeModules(dir)
	e.must(dir, nil, "stack", "init", "dev")
	e.must(dir, nil, "config", "set", "--secret", "digitaloceanToken", doToken)
	e.must(dir, nil, "up", "--yes", "--skip-preview")
	outputs := e.outputs(dir)
	if id, _ := outputs["clusterId"].(string); id == "" {
		t.Errorf("outputs %v, want the cluster's id", outputs)
	}
	e.must(dir, nil, "state", "unprotect", "--all", "--yes")
	e.must(dir, nil, "destroy", "--yes", "--skip-preview")
}

// Promise: e2e-programs-deploy-and-refuse-a-protected-destroy
func TestEveryExampleManifestDeploysWithClusterplaneAndIsDestroyed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	before := e.inventory()
	fleet := filepath.Join(e.dir, "examples")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	manifests := 0
	for _, k := range kinds {
		files, err := filepath.Glob(filepath.Join(root, "examples", k.kind, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, ".stack-input.yaml") {
				continue // the same manifest as its bare file (examples_test.go plans them equal)
			}
			text := example(t, filepath.Join(k.kind, filepath.Base(path)))
			if k.protected && !strings.Contains(text, "deletionProtection: false") {
				text = withSpec(text, "  deletionProtection: false\n")
			}
			name := k.kind + "-" + filepath.Base(path)
			if err := os.WriteFile(filepath.Join(fleet, name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			manifests++
		}
	}
	r, code := e.clusterplane("up", fleet, "--yes")
	done := fmt.Sprintf("Stacks: %d changed.", manifests)
	if code != 0 || !strings.Contains(r.stdout, done) {
		t.Fatalf("up of every example = %d, want %q: %s", code, done, r)
	}
	destroyed := fmt.Sprintf("Stacks: %d destroyed.", manifests)
	if r, code := e.clusterplane("destroy", fleet, "--yes"); code != 0 || !strings.Contains(r.stdout, destroyed) {
		t.Errorf("destroy of every example = %d: %s", code, r)
	}
	if left := e.inventory(); left != before {
		t.Errorf("destroy left the clouds with %s, want %s as before the up", left, before)
	}
}

// typeScriptExample copies the TypeScript example's program (examples/typescript) into a folder
// of e's and returns the folder, where the caller installs the packages it deploys with.
func (e *env) typeScriptExample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(e.dir, "typescript")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.ts", "Pulumi.yaml", "package.json"} {
		data, err := os.ReadFile(filepath.Join(root, "examples", "typescript", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
