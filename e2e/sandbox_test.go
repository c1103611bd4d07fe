//go:build e2e

package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sandboxEnv is the environment of a user trying the sandbox on a fresh machine: no cloud
// credential, no Pulumi home of their own (HOME and TMPDIR are the test's, to see what is left in
// them), the engine that `make engine` built.
func sandboxEnv(t *testing.T, home, tmp string, extra ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(key, "DIGITALOCEAN_"), strings.HasPrefix(key, "CIVO_"), strings.HasPrefix(key, "SPACES_"),
			strings.HasPrefix(key, "PULUMI_"), strings.HasPrefix(key, "CLUSTERPLANE_"), key == "HOME", key == "TMPDIR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, append([]string{"HOME=" + home, "TMPDIR=" + tmp,
		"CLUSTERPLANE_ENGINE=" + filepath.Join(root, ".engine")}, extra...)...)
}

// runClusterplane runs the clusterplane binary in dir with env and returns what it printed and its exit code.
func runClusterplane(t *testing.T, dir string, env []string, args ...string) (result, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "clusterplane"), args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("clusterplane %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout.String(), stderr.String(), err}, code
}

// exampleManifests are the manifests of examples/, each once (a *.stack-input.yaml is the same
// manifest as its bare file), as the quickstart deploys them.
func exampleManifests(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*kubernetes*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example manifests: %v", err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".stack-input.yaml") {
			out = append(out, f)
		}
	}
	return out
}

// processesNaming are the processes whose command line holds s.
func processesNaming(s string) []string {
	var out []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(s)) {
			out = append(out, strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return out
}

// Promise: sandbox-stacks-open-with-its-passphrase
func TestSandboxDeploysEveryExampleKeepsThemAcrossRunsAndResetLeavesNoTrace(t *testing.T) {
	t.Parallel()
	providerPlugins(t) // skips, saying why, without the plugins
	base := t.TempDir()
	work, home, tmp := filepath.Join(base, "work"), filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{work, home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := sandboxEnv(t, home, tmp)
	dir := filepath.Join(work, ".clusterplane-sandbox")
	var printed strings.Builder
	sandbox := func(args ...string) (result, int) {
		t.Helper()
		r, code := runClusterplane(t, work, env, append([]string{"sandbox"}, args...)...)
		printed.WriteString(r.stdout + r.stderr)
		return r, code
	}
	// Whatever fails, no background sandbox outlives the test.
	t.Cleanup(func() { runClusterplane(t, work, env, "sandbox", "stop") })
	manifests := exampleManifests(t)

	// The quickstart: deploy every example into a new sandbox, then show their status.
	r, code := sandbox(append(append([]string{"--", "clusterplane", "up"}, manifests...), "--yes", "--quiet")...)
	done := fmt.Sprintf("Stacks: %d changed.", len(manifests))
	if code != 0 || !strings.Contains(r.stdout, done) {
		t.Fatalf("sandbox -- clusterplane up of every example = %d, want 0 and %q: %s", code, done, r)
	}
	// --quiet: none of the engine's progress, which names each line's stack when several run.
	if progress := regexp.MustCompile(`(?m)^[a-z]+/[a-z0-9-]+: `).FindString(r.stderr); progress != "" {
		t.Errorf("up --quiet printed the engine's progress (%q): %s", progress, r.stderr)
	}
	// A second run finds the stacks and the clouds as the first left them.
	r, code = sandbox(append([]string{"--", "clusterplane", "status"}, manifests...)...)
	if code != 0 || len(readyRows.FindAllString(r.stdout, -1)) != len(manifests) {
		t.Fatalf("sandbox -- clusterplane status = %d, want %d stacks Ready=True: %s", code, len(manifests), r)
	}

	// In the background: the export lines enter the same sandbox from any shell.
	checkAnyShellEntersTheBackgroundSandbox(t, work, env, manifests, sandbox, &printed)

	// Inside the sandbox a manifest whose provider config reaches elsewhere is refused.
	checkAManifestReachingElsewhereIsRefused(t, work, sandbox)

	if r, code := sandbox("stop"); code != 0 {
		t.Errorf("sandbox stop = %d: %s", code, r)
	}
	passphrase, err := os.ReadFile(filepath.Join(dir, "passphrase"))
	if err != nil || len(passphrase) < 32 {
		t.Fatalf("the sandbox's passphrase file: %v", err)
	}
	if info, _ := os.Stat(filepath.Join(dir, "passphrase")); info.Mode().Perm() != 0o600 {
		t.Errorf("the passphrase file has mode %v, want 0600", info.Mode().Perm())
	}

	checkResetLeavesNoTrace(t, dir, sandbox, work, home, tmp)
	if strings.Contains(printed.String(), strings.TrimSpace(string(passphrase))) {
		t.Errorf("a sandbox command printed the passphrase")
	}
}

// sandboxRun runs clusterplane sandbox with its arguments, as the user would.
type sandboxRun func(args ...string) (result, int)

// checkAnyShellEntersTheBackgroundSandbox checks that the export lines of sandbox env, sourced
// by any shell, reach the running sandbox's stacks, and that sandbox -- beside it uses its clouds
// rather than starting its own; all that is printed goes to printed.
func checkAnyShellEntersTheBackgroundSandbox(t *testing.T, work string, env, manifests []string, sandbox sandboxRun, printed *strings.Builder) {
	t.Helper()
	r, code := sandbox("env")
	if code != 0 || !strings.Contains(r.stdout, "export PULUMI_BACKEND_URL=") {
		t.Fatalf("sandbox env = %d, want export lines: %s", code, r)
	}
	// The stop advice names a command that runs from any folder, clusterplane on PATH or not.
	if _, stop, _ := strings.Cut(r.stderr, "stop it with: "); !strings.HasPrefix(stop, filepath.Join(binaries(t), "clusterplane")+" sandbox stop") {
		t.Errorf("sandbox env advises stopping it with %q, want the path of the binary that ran", stop)
	}
	exports := r.stdout
	// shell runs a shell script after the export lines, as a user's shell that sourced them.
	shell := func(script string, args ...string) (result, int) {
		t.Helper()
		cmd := exec.Command("sh", append([]string{"-c", exports + "\n" + script, "sh"}, args...)...)
		cmd.Dir, cmd.Env = work, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		printed.WriteString(stdout.String() + stderr.String())
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
		return result{stdout.String(), stderr.String(), err}, code
	}
	r, code = shell(`exec "$@"`, append([]string{filepath.Join(binaries(t), "clusterplane"), "status"}, manifests...)...)
	if code != 0 || len(readyRows.FindAllString(r.stdout, -1)) != len(manifests) {
		t.Fatalf("status in the background sandbox's environment = %d, want %d stacks Ready=True: %s", code, len(manifests), r)
	}
	// A command run with `sandbox --` while it runs uses its clouds, not clouds of its own.
	background, _ := shell(`echo "$DIGITALOCEAN_API_URL"`)
	r, code = sandbox("--", "sh", "-c", `echo "$DIGITALOCEAN_API_URL"`)
	if code != 0 || r.stdout != background.stdout || !strings.HasPrefix(r.stdout, "http://127.0.0.1:") {
		t.Errorf("sandbox -- beside a running sandbox used %q (exit %d), want the running one's %q", r.stdout, code, background.stdout)
	}
}

// checkAManifestReachingElsewhereIsRefused checks that inside the sandbox a manifest whose
// provider config names a real API and token is refused: the sandbox never reaches a cloud.
func checkAManifestReachingElsewhereIsRefused(t *testing.T, work string, sandbox sandboxRun) {
	t.Helper()
	hostile := filepath.Join(work, "hostile.stack-input.yaml")
	text := strings.Replace(example(t, "digitaloceankubernetescluster/minimal.stack-input.yaml"), "providerConfig: {}",
		"providerConfig: {apiUrl: 'https://api.digitalocean.com', apiToken: 'dop_v1_not-the-sandboxs'}", 1)
	text = strings.ReplaceAll(text, "dev-fra1", "hostile-fra1")
	if err := os.WriteFile(hostile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	r, code := sandbox("--", "clusterplane", "up", hostile, "--yes")
	if code == 0 || !strings.Contains(r.stdout+r.stderr, "which the clusterplane sandbox refuses") {
		t.Errorf("up of a manifest with its own apiUrl and token in the sandbox = %d, want a refusal: %s", code, r)
	}
}

// checkResetLeavesNoTrace runs sandbox --reset and checks that the sandbox's folder, its
// processes and anything it put in the work folder, HOME or TMPDIR are gone.
func checkResetLeavesNoTrace(t *testing.T, dir string, sandbox sandboxRun, work, home, tmp string) {
	t.Helper()
	if r, code := sandbox("--reset"); code != 0 {
		t.Fatalf("sandbox --reset = %d: %s", code, r)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after sandbox --reset %s is still there: %v", dir, err)
	}
	if left := processesNaming(dir); len(left) != 0 {
		t.Errorf("after sandbox --reset processes still run in it: %q", left)
	}
	for _, d := range []string{work, home, tmp} {
		entries, _ := os.ReadDir(d)
		var names []string
		for _, e := range entries {
			if e.Name() != "hostile.stack-input.yaml" {
				names = append(names, e.Name())
			}
		}
		if len(names) != 0 {
			t.Errorf("after sandbox --reset %s still holds %v", d, names)
		}
	}
}

// Promise: sandbox-refuses-real-credentials
func TestSandboxRefusesToStartBesideARealLookingToken(t *testing.T) {
	t.Parallel()
	const real = "dop_v1_" + "3f9a0c1e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a"
	for _, variable := range []string{"DIGITALOCEAN_TOKEN", "CIVO_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN"} {
		t.Run(variable, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			env := sandboxEnv(t, base, base, variable+"="+real)
			// Were it to start by mistake, it must not outlive the test.
			t.Cleanup(func() { runClusterplane(t, base, sandboxEnv(t, base, base), "sandbox", "stop") })
			for _, args := range [][]string{{"sandbox", "--", "true"}, {"sandbox", "env"}} {
				r, code := runClusterplane(t, base, env, args...)
				if code != 1 || !strings.Contains(r.stderr, "unset "+variable) {
					t.Errorf("clusterplane %s with %s set = %d, want 1 and a message to unset it: %s", strings.Join(args, " "), variable, code, r)
				}
				if strings.Contains(r.stdout+r.stderr, real) {
					t.Errorf("clusterplane %s printed the token", strings.Join(args, " "))
				}
			}
			if _, err := os.Stat(filepath.Join(base, ".clusterplane-sandbox")); !os.IsNotExist(err) {
				t.Errorf("a refused sandbox made its folder: %v", err)
			}
		})
	}
}

// readyRows are the rows of a fleet's status table whose READY column is True: STACK, KIND, READY.
var readyRows = regexp.MustCompile(`(?m)^\S+/\S+ +\S+ +True +`)
