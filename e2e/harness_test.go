//go:build e2e

// Package e2e_test deploys the programs on the real Pulumi engine (`make engine` builds it into
// .engine/bin) with the real DigitalOcean and Civo provider plugins (built by `make engine` too,
// into .engine/plugins, from the pinned sources in ../shared/providers-src), offline: each test has
// its own Pulumi home with those plugins installed and ambient plugins ignored, its own file
// backend, and loopback DigitalOcean and Civo APIs (pkg/loopback/fakedo, pkg/loopback/fakecivo) that
// answer as the real ones do and store exactly what the providers send.
//
// Run with `make e2e`, which builds the engine and the plugins first.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	// drivers: the e2e package has a type of its own named clouds (effects_test.go).
	drivers "github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Tokens the environment hands the plugins; neither may appear in state or logs.
const (
	doToken   = "dop_v1_" + "e2e0sentinel0token0digitalocean0never0in0state0or0logs0000000000"
	civoToken = "e2eSENTINEL42civo77token"
)

// sentinelToken is the token the environment hands cloud id's plugin: doToken and civoToken for
// the two clouds, which tests name to call the loopbacks themselves, and for any other a sentinel
// made from its ID, so that a cloud added to the drivers is run, and looked for in state and
// logs, with no line here.
func sentinelToken(id cloud.ID) string {
	switch id {
	case "digitalocean":
		return doToken
	case "civo":
		return civoToken
	}
	return "e2e0sentinel0token0" + string(id) + "0never0in0state0or0logs"
}

// sentinelTokens are every driver's sentinel token.
func sentinelTokens() []string {
	var out []string
	for _, id := range drivers.IDs() {
		out = append(out, sentinelToken(id))
	}
	return out
}

var (
	root      = repoRoot()
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func repoRoot() string {
	dir, _ := os.Getwd()
	return filepath.Dir(dir)
}

// TestMain removes the binaries the tests built (some 350 MB) when they end: left in the
// temporary folder, every run of the suite would add another copy.
func TestMain(m *testing.M) {
	code := m.Run()
	// Every binary folder the tests built is removed here (the Karpenter one, the chart renderer,
	// the previous version): up to 174 MB each,
	// and one left per run fills /tmp.
	for _, dir := range []string{binDir, karpenterBinDir, providerDir, chartRendererDir, previousDir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	if goShimDir != "" {
		if report := goShimReport(); report != "" && testing.Verbose() {
			fmt.Println(report)
		}
		_ = os.RemoveAll(goShimDir)
	}
	os.Exit(code)
}

// binaries builds clusterplane and the clusterplane plugin once per test binary.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "clusterplane-e2e-bin")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator),
			"./cmd/pulumi-resource-clusterplane", "./cmd/clusterplane")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build clusterplane and its plugin: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

var (
	goShimOnce sync.Once
	// goShimDir holds the `go` that newEnv puts first on the tests' PATH, and the programs it built.
	goShimDir string
	goShimErr error
)

// goShimScript is the `go` of goShim; %[1]s is the real go, %[2]s the folder of the programs.
// The Go language host runs `go build -o NEWTEMPFILE` in the program's folder for every `pulumi
// up` and preview of a `runtime: go` project (sdk v3.66.0 pulumi-language-go compileProgram): a
// full link, 4 to 7.5 CPU-s and 1.6 GB, each time. Here that build goes to one
// lasting file per program folder instead, which go itself relinks only when its build ID says the
// file is out of date (source, dependencies, flags or toolchain changed): the program is always
// built from its current source. The lock keeps parallel tests of one program from building into
// that file at once; it is hard-linked to the file asked for (go replaces its output with a new
// file, never writes into it, so a program running from an earlier link is left alone). Each
// build is logged, linked or reused, for TestMain's report under -v. Every other go command, or
// any without flock, is the real go's.
const goShimScript = `#!/bin/sh
# The go of the e2e tests' PATH: see goShimScript in e2e/harness_test.go.
real=%[1]s
programs=%[2]s
if [ "$#" -ne 3 ] || [ "$1" != build ] || [ "$2" != -o ] || [ -d "$3" ] || ! command -v flock >/dev/null 2>&1; then
	exec "$real" "$@"
fi
program="$programs/$(pwd -P | cksum | tr ' ' -)"
exec 9>>"$program.lock"
flock 9 || exec "$real" "$@"
rm -f "$program.last"
if [ -e "$program" ]; then ln "$program" "$program.last"; fi
"$real" build -o "$program" || exit
if [ "$program" -ef "$program.last" ]; then built=reused; else built=linked; fi
rm -f "$program.last"
echo "$built $(pwd -P)" >>"$programs/builds.log"
ln -f "$program" "$3" 2>/dev/null || { rm -f "$3" && cp "$program" "$3"; }
`

// goShim writes, once per test binary, the `go` of goShimScript into a folder of its own and
// returns that folder, or "" where it cannot work (Windows, no go): there the real go runs.
func goShim(t *testing.T) string {
	t.Helper()
	goShimOnce.Do(func() {
		if runtime.GOOS == "windows" {
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			return
		}
		if goBin, goShimErr = filepath.Abs(goBin); goShimErr != nil {
			return
		}
		if goShimDir, goShimErr = os.MkdirTemp("", "clusterplane-e2e-go"); goShimErr != nil {
			return
		}
		programs := filepath.Join(goShimDir, "programs")
		if goShimErr = os.Mkdir(programs, 0o755); goShimErr != nil {
			return
		}
		script := fmt.Sprintf(goShimScript, shellQuote(goBin), shellQuote(programs))
		goShimErr = os.WriteFile(filepath.Join(goShimDir, "go"), []byte(script), 0o755)
	})
	if goShimErr != nil {
		t.Fatalf("the go shim: %v", goShimErr)
	}
	return goShimDir
}

// goShimReport says how many program builds the go shim took and how many of them linked, or
// nothing if it took none.
func goShimReport() string {
	data, _ := os.ReadFile(filepath.Join(goShimDir, "programs", "builds.log"))
	if len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	linked := 0
	for _, line := range lines {
		if strings.HasPrefix(line, "linked ") {
			linked++
		}
	}
	return fmt.Sprintf("e2e: the go shim took %d program builds: %d linked, %d reused the last link", len(lines), linked, len(lines)-linked)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plugin is a resource plugin a test's Pulumi home has installed.
type plugin struct {
	// name is the package ("digitalocean"); version the one the modules' SDK asks for.
	name, version string
	// binary is the plugin's executable.
	binary string
}

var (
	pluginsOnce sync.Once
	providers   []plugin
	pluginsErr  error
	pluginsSkip string
)

// providerPlugins are every driver's real provider plugin `make engine` built, each with the
// version the modules' Go SDK (go.mod) asks the engine for. Without ../shared (a user's clone) they
// cannot be built, and the tests that need them skip, saying so.
func providerPlugins(t *testing.T) []plugin {
	t.Helper()
	pluginsOnce.Do(func() {
		for _, d := range drivers.All() {
			p := struct{ name, module string }{string(d.ID()), d.ProviderSDK()}
			binary := filepath.Join(root, ".engine", "plugins", "pulumi-resource-"+p.name)
			if _, err := os.Stat(binary); err != nil {
				if _, shared := os.Stat(filepath.Join(root, "..", "shared", "providers-src")); shared != nil {
					pluginsSkip = "the real provider plugins are not built: ../shared/providers-src, their pinned sources, " +
						"is absent (a clone without ../shared), so `make engine` could not build them"
				} else {
					pluginsErr = fmt.Errorf("%s is not built: run `make engine` (or `make e2e`, which runs it)", binary)
				}
				return
			}
			cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", p.module)
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil {
				pluginsErr = fmt.Errorf("the version of %s in go.mod: %v", p.module, err)
				return
			}
			providers = append(providers, plugin{p.name, strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), binary})
		}
	})
	if pluginsSkip != "" {
		t.Skip(pluginsSkip)
	}
	if pluginsErr != nil {
		t.Fatal(pluginsErr)
	}
	return providers
}

// install puts a plugin into a Pulumi home's plugin cache, where `pulumi plugin install resource
// NAME VERSION --file BINARY` puts it, as a link: the real plugins are 40 to 50 MB each.
func install(t *testing.T, home string, p plugin) {
	t.Helper()
	dir := filepath.Join(home, "plugins", "resource-"+p.name+"-v"+p.version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p.binary, filepath.Join(dir, "pulumi-resource-"+p.name)); err != nil {
		t.Fatal(err)
	}
}

// env is one test's Pulumi home, backend, loopback clouds and environment.
type env struct {
	t   *testing.T
	dir string
	// vars is the environment of every command the test runs.
	vars []string
	// logs collects every command's output, to check that no secret is printed.
	logs   bytes.Buffer
	logsMu sync.Mutex
	// loopbacks are the test's clouds, every driver's by its ID: what the real provider plugins
	// (and the clusterplane plugin, for Civo node pools) call. do and civo are two of them, typed,
	// for the tests that read or change those clouds themselves.
	loopbacks map[cloud.ID]fakeclouds.Cloud
	do        *fakedo.DO
	civo      *fakecivo.Civo
	// serveWith, when set, is what the test's serve replicas run in place of the test's own
	// build of clusterplane (a script that runs serve's image in a container).
	serveWith string
}

// startLoopbacks starts every driver's loopback cloud with its sentinel token; a driver with no
// loopback fails the test naming where its line belongs.
func (e *env) startLoopbacks() {
	e.t.Helper()
	e.loopbacks = map[cloud.ID]fakeclouds.Cloud{}
	for _, id := range drivers.IDs() {
		l, ok := fakeclouds.Get(id)
		if !ok {
			e.t.Fatalf("the %s driver has no loopback cloud: add its line to All in pkg/loopback/fakeclouds", id)
		}
		e.loopbacks[id] = l.Start(e.t, sentinelToken(id), 0, fakecloud.Lifetime)
	}
	var ok bool
	if e.do, ok = e.loopbacks["digitalocean"].(*fakedo.DO); !ok {
		e.t.Fatalf("DigitalOcean's loopback is a %T, not pkg/loopback/fakedo's", e.loopbacks["digitalocean"])
	}
	if e.civo, ok = e.loopbacks["civo"].(*fakecivo.Civo); !ok {
		e.t.Fatalf("Civo's loopback is a %T, not pkg/loopback/fakecivo's", e.loopbacks["civo"])
	}
}

// cloudVars are every driver's token and API URL variables, pointing at the test's loopbacks.
func (e *env) cloudVars() []string {
	var vars []string
	for _, d := range drivers.All() {
		vars = append(vars, d.Env().TokenEnv+"="+sentinelToken(d.ID()), d.Env().URLEnv+"="+e.loopbacks[d.ID()].URL())
	}
	return vars
}

func newEnv(t *testing.T) *env {
	t.Helper()
	engine := filepath.Join(root, ".engine", "bin")
	if _, err := os.Stat(filepath.Join(engine, "pulumi")); err != nil {
		t.Fatalf("the Pulumi engine is not built: run `make engine` (or `make e2e`, which builds it): %v", err)
	}
	dir := t.TempDir()
	e := &env{t: t, dir: dir}
	e.startLoopbacks()
	for _, sub := range []string{"home", "state", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	for _, p := range providerPlugins(t) {
		install(t, home, p)
	}
	// The programs run by `pulumi up` (the Civo node pool's, the examples) need the clusterplane
	// plugin installed as a user would; clusterplane installs itself.
	install(t, home, plugin{"clusterplane", "0.0.0", filepath.Join(binaries(t), "pulumi-resource-clusterplane")})
	path := engine + string(os.PathListSeparator) + os.Getenv("PATH")
	if shim := goShim(t); shim != "" {
		path = shim + string(os.PathListSeparator) + path
	}
	e.vars = append(os.Environ(),
		"PATH="+path,
		"PULUMI_HOME="+home,
		"PULUMI_BACKEND_URL=file://"+filepath.Join(dir, "state"),
		"PULUMI_CONFIG_PASSPHRASE=e2e-passphrase",
		"PULUMI_SKIP_UPDATE_CHECK=1",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true",
		// Only the plugins installed above: never another binary of the same name on PATH.
		"PULUMI_IGNORE_AMBIENT_PLUGINS=true",
		"PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=1",
		"STACK_INPUT_FILE=",
		// A temporary folder of the test's own: what the commands leave there is the test's to see.
		"TMPDIR="+filepath.Join(dir, "tmp"),
	)
	e.vars = append(e.vars, e.cloudVars()...)
	e.vars = append(e.vars, goGCVars()...)
	t.Cleanup(func() { e.assertNoSecrets() })
	return e
}

// goGCVars is the garbage collector's setting for the Go processes a test starts through its
// env (the Pulumi CLI, the language hosts, the provider plugins, the programs, clusterplane):
// each lives for one command and allocates fast, and the suite is bound by CPU. Collecting a fifth
// as often (GOGC=400 instead of Go's 100) saved about a tenth of their CPU: the day-2 replacement
// test's go test took 32.7 and 33.2 CPU-s without it, 31.1 and 31.6 with it, of which 13.6
// are building clusterplane and its plugin, which this does not touch. GOMEMLIMIT makes a process
// collect anyway as its heap nears 1 GiB, so none grows without bound. A setting of the
// developer's (either variable set) is kept.
func goGCVars() []string {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return []string{"GOGC=400", "GOMEMLIMIT=1GiB"}
}

// log keeps a command's output for assertNoSecrets.
func (e *env) log(texts ...string) {
	e.logsMu.Lock()
	defer e.logsMu.Unlock()
	for _, text := range texts {
		e.logs.WriteString(text)
	}
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
	e.log(stdout.String(), stderr.String())
	return result{stdout.String(), stderr.String(), err}
}

// clusterplane runs the clusterplane command in the test's directory with its environment and
// returns its exit code.
func (e *env) clusterplane(args ...string) (result, int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(e.t), "clusterplane"), args...)
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
		e.log(stdout.String(), stderr.String())
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

// kubeconfigMarks are what a kubeconfig the clouds issue holds, in plain text or base64: a
// DigitalOcean credentials token, a Civo kubeconfig's client key, the start of a kubeconfig
// encoded as a Civo cluster's kubeconfig_b64 output is.
var kubeconfigMarks = []string{fakedo.CredentialPrefix, "client-key-data", base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nclusters:"))[:32]}

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
	for _, secret := range append(sentinelTokens(), kubeconfigMarks...) {
		if strings.Contains(state.String(), secret) {
			e.t.Errorf("the state holds %q in plain text", secret)
		}
	}
	for _, secret := range sentinelTokens() {
		if strings.Contains(e.logs.String(), secret) {
			e.t.Errorf("a command printed %q", secret)
		}
	}
}

func TestTheTestsProcessesCollectGarbageLessOftenUnlessTheDeveloperSaidOtherwise(t *testing.T) {
	tests := []struct {
		name             string
		gogc, gomemlimit string
		want             []string
	}{
		{name: "neither set gives both settings", want: []string{"GOGC=400", "GOMEMLIMIT=1GiB"}},
		{name: "a developer's GOGC is kept", gogc: "50"},
		{name: "a developer's GOMEMLIMIT is kept", gomemlimit: "4GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			t.Setenv("GOMEMLIMIT", tt.gomemlimit)
			if got := goGCVars(); !slices.Equal(got, tt.want) {
				t.Errorf("goGCVars() = %q, want %q", got, tt.want)
			}
		})
	}
}
