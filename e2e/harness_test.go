//go:build e2e

// Package e2e_test deploys the programs on the real Pulumi engine (`make engine` builds it into
// .engine/bin) against the stand-in DigitalOcean and Civo plugins of internal/standin, offline,
// each test in a temporary directory with a file backend. What the stand-ins cannot prove is
// said in their package; what these tests prove is the engine's part: protect, ignoreChanges,
// aliases, secrets in state, refresh, stack references, Construct through the language hosts.
//
// Run with `make e2e`, which builds the engine first.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/clusterplane/clusterplane/internal/fakecivo"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tokens the environment hands the plugins; neither may appear in state or logs.
const (
	doToken   = "dop_v1_" + "e2e0sentinel0token0digitalocean0never0in0state0or0logs0000000000"
	civoToken = "e2eSENTINEL42civo77token"
)

var (
	root       = repoRoot()
	pluginsDir string
	buildOnce  sync.Once
	buildErr   error
)

func repoRoot() string {
	dir, _ := os.Getwd()
	return filepath.Dir(dir)
}

// plugins builds the stand-in provider plugins and the clusterplane plugin once per test binary.
func plugins(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		pluginsDir, buildErr = os.MkdirTemp("", "clusterplane-e2e-plugins")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", pluginsDir+string(os.PathSeparator),
			"./internal/standin/cmd/pulumi-resource-digitalocean", "./internal/standin/cmd/pulumi-resource-civo",
			"./cmd/pulumi-resource-clusterplane", "./cmd/clusterplane")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build the plugins: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return pluginsDir
}

// env is one test's Pulumi home, backend, stand-in cloud and environment.
type env struct {
	t     *testing.T
	dir   string
	cloud string
	vars  []string
	// logs collects every command's output, to check that no secret is printed.
	logs bytes.Buffer
	// registry is the status DigitalOcean's API answers GET /v2/registry with (200 unless a test
	// says otherwise): the module asks it before enabling registry integration, and the tests'
	// only API is this loopback server.
	registry atomic.Int32
	// seeded are the ids of the resources the test put into the cloud itself.
	seeded []string
	// civo is the loopback Civo API the clusterplane plugin manages Civo node pools through (the
	// stand-in civo provider manages the clusters): any cluster, any region, the test's token.
	civo *fakecivo.Civo
}

func newEnv(t *testing.T) *env {
	t.Helper()
	engine := filepath.Join(root, ".engine", "bin")
	if _, err := os.Stat(filepath.Join(engine, "pulumi")); err != nil {
		t.Fatalf("the Pulumi engine is not built: run `make engine` (or `make e2e`, which builds it): %v", err)
	}
	dir := t.TempDir()
	e := &env{t: t, dir: dir, cloud: filepath.Join(dir, "cloud")}
	e.registry.Store(http.StatusOK)
	e.civo = fakecivo.New(t, civoToken, "")
	e.civo.AnyCluster = true
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/registry" {
			w.WriteHeader(int(e.registry.Load()))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(api.Close)
	for _, sub := range []string{"home", "state", "cloud"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.vars = append(os.Environ(),
		"PATH="+plugins(t)+string(os.PathListSeparator)+engine+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PULUMI_HOME="+filepath.Join(dir, "home"),
		"PULUMI_BACKEND_URL=file://"+filepath.Join(dir, "state"),
		"PULUMI_CONFIG_PASSPHRASE=e2e-passphrase",
		"PULUMI_SKIP_UPDATE_CHECK=1",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true",
		"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1",
		"CLUSTERPLANE_STANDIN_CLOUD="+e.cloud,
		"DIGITALOCEAN_TOKEN="+doToken,
		"DIGITALOCEAN_API_URL="+api.URL,
		"CIVO_TOKEN="+civoToken,
		"CIVO_API_URL="+e.civo.URL(),
		"STACK_INPUT_FILE=",
	)
	t.Cleanup(func() { e.assertNoSecrets() })
	return e
}

// project writes a Pulumi.yaml for the program of kind (a folder of iac/pulumi) in its own
// directory, so that stack settings stay out of the repository; the Go language host builds the
// program from the repository.
func (e *env) project(name, kind string) string {
	e.t.Helper()
	return e.goProject(name, kind, filepath.Join(root, "iac", "pulumi", kind))
}

// goProject writes, in the directory name, a Pulumi.yaml of the Go program at main named project.
func (e *env) goProject(name, project, main string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	text := fmt.Sprintf("name: %s\nruntime: go\nmain: %s\n", project, main)
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// stack makes a project of the program of kind with a stack "dev", and writes the manifest as the
// stack input: the directory to run pulumi in, and the environment that names the input.
func (e *env) stack(kind, manifest string) (string, []string) {
	e.t.Helper()
	dir := e.project("p", kind)
	e.must(dir, nil, "stack", "init", "dev")
	return dir, []string{"STACK_INPUT_FILE=" + e.write("stack-input.yaml", manifest)}
}

// result is what a command printed and how it ended.
type result struct {
	stdout, stderr string
	err            error
}

func (r result) String() string {
	return fmt.Sprintf("err: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
}

// pulumi runs the CLI in dir with extra environment variables, bounded in time.
func (e *env) pulumi(dir string, extra []string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, ".engine", "bin", "pulumi"), append(args, "--non-interactive")...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, e.vars...), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	e.logs.WriteString(stdout.String() + stderr.String())
	return result{stdout.String(), stderr.String(), err}
}

// clusterplane runs the clusterplane command in the test's directory with its environment and
// returns its exit code.
func (e *env) clusterplane(args ...string) (result, int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(plugins(e.t), "clusterplane"), args...)
	cmd.Dir = e.dir
	cmd.Env = e.vars
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		e.t.Fatalf("clusterplane %s: %v", strings.Join(args, " "), err)
	}
	if len(args) == 0 || args[0] != "kubeconfig" {
		e.logs.WriteString(stdout.String() + stderr.String())
	}
	return result{stdout.String(), stderr.String(), err}, code
}

// must runs pulumi and fails the test when it fails.
func (e *env) must(dir string, extra []string, args ...string) result {
	e.t.Helper()
	r := e.pulumi(dir, extra, args...)
	if r.err != nil {
		e.t.Fatalf("pulumi %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// outputs reads the stack's outputs, secrets shown (for the test only).
func (e *env) outputs(dir string) map[string]any {
	e.t.Helper()
	r := e.must(dir, nil, "stack", "output", "--json", "--show-secrets")
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		e.t.Fatalf("stack output: %v\n%s", err, r.stdout)
	}
	return out
}

// assertNoSecrets checks that neither token, nor a kubeconfig, is in the state files or in what
// any command printed. Kubeconfigs are looked for in the state only: the tests' own
// `stack output --show-secrets` prints them into the logs.
func (e *env) assertNoSecrets() {
	var state bytes.Buffer
	_ = filepath.WalkDir(filepath.Join(e.dir, "state"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			state.Write(data)
		}
		return nil
	})
	for _, secret := range []string{doToken, civoToken, "fake kubeconfig"} {
		if strings.Contains(state.String(), secret) {
			e.t.Errorf("the state holds %q in plain text", secret)
		}
	}
	for _, secret := range []string{doToken, civoToken} {
		if strings.Contains(e.logs.String(), secret) {
			e.t.Errorf("a command printed %q", secret)
		}
	}
}
