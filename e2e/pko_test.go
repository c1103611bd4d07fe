//go:build e2e

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// exportedStack is what the test reads from an exported Stack.
type exportedStack struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Stack   string            `json:"stack"`
		Config  map[string]string `json:"config"`
		EnvRefs map[string]struct {
			Type   string `json:"type"`
			Secret struct {
				Name string `json:"name"`
				Key  string `json:"key"`
			} `json:"secret"`
		} `json:"envRefs"`
		Prerequisites []struct {
			Name string `json:"name"`
		} `json:"prerequisites"`
		WorkspaceTemplate struct {
			Spec struct {
				Local struct {
					Dir string `json:"dir"`
				} `json:"local"`
			} `json:"spec"`
		} `json:"workspaceTemplate"`
	} `json:"spec"`
}

// Promise: program-sets-clusterplanes-mark
func TestEachExportedStackRunsAsItsWorkspaceWouldAndLeavesClusterplaneNothingToChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	fleet := writeEveryExampleUnprotected(t, e)
	out := filepath.Join(e.dir, "pko")
	if r, code := e.clusterplane("export", "pko", "--image", "registry.example/workspace:e2e", fleet, "-d", out); code != 0 {
		t.Fatalf("export pko = %d: %s", code, r)
	}

	// The Secret the stacks read, as `kubectl create secret` would hold it.
	secret := map[string]string{"digitalocean-token": doToken, "civo-token": civoToken}
	for _, kv := range e.vars {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PULUMI_BACKEND_URL":
			secret["backend-url"] = v
		case "PULUMI_CONFIG_PASSPHRASE":
			secret["passphrase"] = v
		}
	}

	stacks := readExportedStacks(t, out)
	ran, waited := map[string]bool{}, 0
	for _, name := range prerequisitesFirst(t, stacks) {
		s := stacks[name]
		for _, p := range s.Spec.Prerequisites {
			if !ran[p.Name] {
				t.Fatalf("%s runs before its prerequisite %s", name, p.Name)
			}
			waited++
		}
		e.runWorkspace(s, secret)
		ran[name] = true

		// The same resources as clusterplane up would deploy, the stack's mark among them (the
		// workspace's program finds it from PULUMI_BACKEND_URL): nothing for clusterplane to change,
		// and the stack reads deployed, this manifest's generation.
		// The annotation is the manifest's path from the folder exported (reproducible anywhere).
		file := filepath.Join(fleet, filepath.FromSlash(s.Metadata.Annotations["clusterplane.dev/manifest"]))
		r, code := e.clusterplane("preview", file, "-o", "json")
		var report struct {
			Stacks []struct {
				Changes map[string]int `json:"changes"`
				Reason  string         `json:"reason"`
			} `json:"stacks"`
		}
		if code != 0 || json.Unmarshal([]byte(r.stdout), &report) != nil || len(report.Stacks) != 1 {
			t.Fatalf("clusterplane preview %s after the workspace's up = %d: %s", file, code, r)
		}
		for op, n := range report.Stacks[0].Changes {
			if op != "same" && n > 0 {
				t.Errorf("%s: clusterplane would %s %d resources the workspace deployed: %v (%s)", name, op, n, report.Stacks[0].Changes, report.Stacks[0].Reason)
			}
		}
		if st := e.status(file); condition(st, "Ready") != "True/Deployed" || st.Generation != st.ObservedGeneration {
			t.Errorf("%s: status after the workspace's up: %+v", name, st)
		}
	}
	if waited < 2 {
		t.Errorf("%d prerequisites met, want the pools that reference clusters to wait for them", waited)
	}
	if r, code := e.clusterplane("destroy", fleet, "--yes"); code != 0 {
		t.Errorf("clusterplane destroy of what the workspaces deployed = %d: %s", code, r)
	}
}

// writeEveryExampleUnprotected copies every example manifest of every kind into one folder, with
// deletion protection off so that the fleet can be destroyed at the end, and says the folder.
func writeEveryExampleUnprotected(t *testing.T, e *env) string {
	t.Helper()
	fleet := filepath.Join(e.dir, "examples")
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		files, _ := filepath.Glob(filepath.Join(root, "examples", k.kind, "*.yaml"))
		for _, path := range files {
			if strings.HasSuffix(path, ".stack-input.yaml") {
				continue
			}
			text := example(t, filepath.Join(k.kind, filepath.Base(path)))
			if k.protected && !strings.Contains(text, "deletionProtection: false") {
				text = withSpec(text, "  deletionProtection: false\n")
			}
			if err := os.WriteFile(filepath.Join(fleet, k.kind+"-"+filepath.Base(path)), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return fleet
}

// readExportedStacks reads the Stacks of an export by name, leaving out what the namespace needs.
func readExportedStacks(t *testing.T, out string) map[string]exportedStack {
	t.Helper()
	stacks := map[string]exportedStack{}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "00-") {
			continue // what the namespace needs, no Stack
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s exportedStack
		if err := yaml.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		stacks[s.Metadata.Name] = s
	}
	return stacks
}

// prerequisitesFirst orders the stacks so that each comes after its prerequisites, as PKO runs them.
func prerequisitesFirst(t *testing.T, stacks map[string]exportedStack) []string {
	t.Helper()
	var names, order []string
	for name := range stacks {
		names = append(names, name)
	}
	sort.Strings(names)
	placed := map[string]bool{}
	for len(order) < len(names) {
		progress := false
		for _, name := range names {
			if placed[name] {
				continue
			}
			ready := true
			for _, p := range stacks[name].Spec.Prerequisites {
				if _, ok := stacks[p.Name]; !ok {
					t.Fatalf("%s waits for %s, which the export does not hold", name, p.Name)
				}
				ready = ready && placed[p.Name]
			}
			if ready {
				placed[name], order, progress = true, append(order, name), true
			}
		}
		if !progress {
			t.Fatal("the prerequisites form a cycle")
		}
	}
	return order
}

// runWorkspace runs an exported Stack as its workspace pod would: the program folder of the image
// (iac/pulumi/<kind>/workspace), the Stack's settings, and an
// environment holding only what its envRefs take from the Secret.
func (e *env) runWorkspace(s exportedStack, secret map[string]string) {
	e.t.Helper()
	kind := filepath.Base(s.Spec.WorkspaceTemplate.Spec.Local.Dir)
	project, err := os.ReadFile(filepath.Join(root, "iac", "pulumi", kind, "workspace", "Pulumi.yaml"))
	if err != nil {
		e.t.Fatalf("%s: the image has no program %s: %v", s.Metadata.Name, kind, err)
	}
	dir := filepath.Join(e.dir, "workspaces", s.Metadata.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	// The image runs the program binary it built (runtime option binary). The Go language host
	// here is v3.66, the last sdk/v3 release that holds one, and takes that option only as a
	// command-line flag, which the v3.259 CLI no longer passes (it sends options over gRPC, as
	// the image's own v3.259 host reads them): so here the host builds the same program from its
	// source, the folder the image's binary is built from.
	text := strings.Replace(string(project), "    binary: /usr/local/bin/"+kind, "    buildTarget: "+filepath.Join(dir, kind), 1)
	text = strings.Replace(text, "runtime:", "main: "+filepath.Join(root, "iac", "pulumi", kind)+"\nruntime:", 1)
	if !strings.Contains(text, "buildTarget") {
		e.t.Fatalf("iac/pulumi/%s/workspace/Pulumi.yaml no longer runs /usr/local/bin/%s:\n%s", kind, kind, project)
	}
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	// What the Stack does not give its workspace is blank: only its envRefs supply credentials.
	extra := []string{"PULUMI_BACKEND_URL=", "PULUMI_CONFIG_PASSPHRASE=", "DIGITALOCEAN_TOKEN=", "CIVO_TOKEN="}
	for name, ref := range s.Spec.EnvRefs {
		value, ok := secret[ref.Secret.Key]
		if ref.Type != "Secret" || !ok {
			e.t.Fatalf("%s: envRefs %s is %+v, not a key of the Secret", s.Metadata.Name, name, ref)
		}
		extra = append(extra, name+"="+value)
	}
	e.must(dir, extra, "stack", "select", "--create", s.Spec.Stack)
	for key, value := range s.Spec.Config {
		e.must(dir, extra, "config", "set", key, value)
	}
	e.must(dir, extra, "up", "--yes", "--skip-preview")
}
