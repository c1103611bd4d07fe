// Package programs_test builds every kind's program binary and runs their offline commands the way
// a user or CI would: validate and plan every example, reject invalid manifests, never print a
// credential.
package programs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"sigs.k8s.io/yaml"
)

const (
	// envToken is the token the environment hands every program; fileToken the one a stack-input
	// file carries. Neither may ever be printed.
	envToken  = "tok-SENTINEL-123"
	fileToken = "tok-SENTINEL-FILE-456"
)

// program is one kind's binary and what its commands must show, all of it taken from the list
// of kinds and the kind's own folder: a fifth kind needs no line here.
type program struct {
	name string
	// kind is the manifest kind it deploys.
	kind string
	// cloud is the cloud of the kind's API (apis/clusterplane/provider/<cloud>/...), whose
	// Pulumi SDK alone the program links.
	cloud string
	// types are resource types every plan of the kind registers: its component, its provider
	// and the cloud resource it exists for, as its effects table names them.
	types []string
	// invalid is a manifest with several mistakes and violations the fields it breaks, read from
	// iac/pulumi/<kind>/testdata/invalid.yaml, whose "# violations:" line names them.
	invalid    string
	violations []string
	// fixtureErr says why the kind's invalid manifest could not be read.
	fixtureErr error
}

// violationsLine is the comment of an invalid.yaml fixture that names the fields it breaks.
const violationsLine = "# violations:"

var programs = func() []program {
	var out []program
	for _, k := range registry.Kinds() {
		p := program{name: k.Project, kind: k.Name, cloud: strings.Split(string(k.StackInput().FullName()), ".")[2]}
		// Every kind registers its component, its provider, and its cluster or its node pool.
		for _, role := range []effects.Role{effects.Component, effects.Provider, effects.Cluster, effects.NodePool} {
			if token, ok := k.Effects.Types[role]; ok {
				p.types = append(p.types, token)
			}
		}
		text, err := os.ReadFile(filepath.Join(k.Project, "testdata", "invalid.yaml"))
		if err != nil {
			p.fixtureErr = fmt.Errorf("%s has no invalid manifest for the offline commands' tests: %w", k.Name, err)
		}
		p.invalid = string(text)
		for _, line := range strings.Split(p.invalid, "\n") {
			if rest, ok := strings.CutPrefix(line, violationsLine); ok {
				p.violations = append(p.violations, strings.Fields(rest)...)
			}
		}
		if err == nil && len(p.violations) == 0 {
			p.fixtureErr = fmt.Errorf("%s/testdata/invalid.yaml has no %q line naming the fields it breaks", k.Project, violationsLine)
		}
		out = append(out, p)
	}
	return out
}()

var (
	buildOnce sync.Once
	binDir    string
	root      string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// build compiles every kind's program once per test binary and returns the module root.
func build(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the program binaries; skipped with -short")
	}
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			buildErr = errors.New("not inside a Go module")
			return
		}
		root = filepath.Dir(gomod)
		if binDir, buildErr = os.MkdirTemp("", "clusterplane-programs-"); buildErr != nil {
			return
		}
		args := []string{"build", "-o", binDir + string(filepath.Separator)}
		for _, p := range programs {
			args = append(args, "./iac/pulumi/"+p.name)
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs program p with args, with the sentinel token in its environment and none of the
// caller's credentials, stack-input settings or Pulumi engine addresses.
func (p program) run(t *testing.T, args ...string) result {
	t.Helper()
	return p.runEnv(t, nil, args...)
}

// runEnv is run with env added to the environment.
func (p program) runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, p.name), args...)
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains([]string{"CIVO_TOKEN", "DIGITALOCEAN_TOKEN", "CIVO_API_URL", "DIGITALOCEAN_API_URL",
			"STACK_INPUT_FILE", "PULUMI_MONITOR", "PULUMI_ENGINE", "PULUMI_PLUGINS"}, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CIVO_TOKEN="+envToken, "DIGITALOCEAN_TOKEN="+envToken)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s %v: %v", p.name, args, err)
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	for _, token := range []string{envToken, fileToken} {
		if strings.Contains(r.stdout, token) || strings.Contains(r.stderr, token) {
			t.Errorf("%s %v printed the token %s:\nstdout:\n%s\nstderr:\n%s", p.name, args, token, r.stdout, r.stderr)
		}
	}
	return r
}

// examples returns the example files of p's kind.
func (p program) examples(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", p.name, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples for %s: %v", p.name, err)
	}
	return files
}

// eachExample runs check, each call a parallel subtest, on every example file of every program
// and, with tokenToo, also on a copy of each stack-input example that holds a token in its file.
func eachExample(t *testing.T, tokenToo bool, check func(t *testing.T, p program, file string)) {
	t.Helper()
	for _, p := range programs {
		for _, file := range p.examples(t) {
			t.Run(p.name+"/"+filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				files := []string{file}
				if tokenToo && strings.HasSuffix(file, ".stack-input.yaml") {
					files = append(files, withFileToken(t, file))
				}
				for _, f := range files {
					check(t, p, f)
				}
			})
		}
	}
}

// withFileToken writes the stack-input example at path with the file sentinel as its API token.
func withFileToken(t *testing.T, path string) string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const empty = "providerConfig: {}"
	if !bytes.Contains(text, []byte(empty)) {
		t.Fatalf("%s has no %q to put a token into", path, empty)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	text = bytes.Replace(text, []byte(empty), []byte("providerConfig:\n  apiToken: "+fileToken), 1)
	if err := os.WriteFile(out, text, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidateAcceptsEveryExampleOfItsKind(t *testing.T) {
	build(t)
	eachExample(t, true, func(t *testing.T, p program, f string) {
		r := p.run(t, "validate", f)
		// A pool whose cluster is read by reference is valid with a note: its region is
		// checked by preview and up, against the cluster's stack.
		want := f + ": valid " + p.kind + "\n"
		noted := f + ": valid " + p.kind + " (" + cli.RegionUncheckedNote + ")\n"
		if r.code != 0 || (r.stdout != want && r.stdout != noted) || r.stderr != "" {
			t.Errorf("validate %s = exit %d, stdout %q, stderr %q; want 0 and %q", f, r.code, r.stdout, r.stderr, want)
		}
	})
}

func TestValidateRejectsAnInvalidManifestListingEveryViolation(t *testing.T) {
	build(t)
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			if p.fixtureErr != nil {
				t.Fatal(p.fixtureErr)
			}
			bare := writeFile(t, "invalid.yaml", p.invalid)
			stackInput := writeFile(t, "invalid.stack-input.yaml", "target:\n  "+
				strings.ReplaceAll(strings.TrimSpace(p.invalid), "\n", "\n  ")+"\nproviderConfig:\n  apiToken: "+fileToken+"\n")
			for file, prefix := range map[string]string{bare: "", stackInput: "target."} {
				for _, args := range [][]string{{"validate", file}, {"plan", file, "-o", "json"}} {
					r := p.run(t, args...)
					if r.code != 1 || r.stdout != "" {
						t.Errorf("%v = exit %d, stdout %q; want exit 1 and nothing on stdout", args, r.code, r.stdout)
					}
					// One line a problem: FILE:LINE:COLUMN: path: message.
					lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
					for _, line := range lines {
						if !regexp.MustCompile("^" + regexp.QuoteMeta(file) + `:\d+:\d+: `).MatchString(line) {
							t.Errorf("%v: %q is not FILE:LINE:COLUMN: path: message", args, line)
						}
					}
					if len(lines) != len(p.violations) {
						t.Errorf("%v: %d problems, want %d:\n%s", args, len(lines), len(p.violations), r.stderr)
					}
					for _, field := range p.violations {
						if !strings.Contains(r.stderr, ": "+prefix+field+": ") {
							t.Errorf("%v: stderr does not list %s%s:\n%s", args, prefix, field, r.stderr)
						}
					}
				}
			}
		})
	}
}

func TestPlanOfEveryExampleWritesJSONWithTheKindsResources(t *testing.T) {
	build(t)
	eachExample(t, true, func(t *testing.T, p program, f string) {
		r := p.run(t, "plan", f, "-o", "json")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("plan %s -o json = exit %d, stderr:\n%s", f, r.code, r.stderr)
		}
		var doc struct {
			Resources []struct {
				Type   string         `json:"type"`
				Inputs map[string]any `json:"inputs"`
			} `json:"resources"`
			Outputs map[string]struct {
				Secret bool `json:"secret"`
			} `json:"outputs"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("plan %s -o json wrote invalid JSON: %v\n%s", f, err, r.stdout)
		}
		types := map[string]int{}
		for _, res := range doc.Resources {
			types[res.Type]++
			// The clusterplane provider names its setting for the cloud it is for.
			key := "token"
			if res.Type == "pulumi:providers:clusterplane" {
				key = "civoToken"
			}
			if strings.HasPrefix(res.Type, "pulumi:providers:") && res.Inputs[key] != "[secret]" {
				t.Errorf("plan %s: provider %s = %v, want [secret]", f, key, res.Inputs[key])
			}
		}
		for _, want := range p.types {
			if types[want] != 1 {
				t.Errorf("plan %s registered %d %s, want 1 (all: %v)", f, types[want], want, types)
			}
		}
		if len(doc.Outputs) == 0 {
			t.Errorf("plan %s exports nothing", f)
		}
	})
}

func TestPlanOfEveryExampleWritesText(t *testing.T) {
	build(t)
	eachExample(t, false, func(t *testing.T, p program, file string) {
		r := p.run(t, "plan", file)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("plan %s = exit %d, stderr:\n%s", file, r.code, r.stderr)
		}
		for _, want := range append([]string{"RESOURCES", "OUTPUTS"}, p.types...) {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("plan %s lacks %q:\n%s", file, want, r.stdout)
			}
		}
	})
}

func TestBadUsageExitsWithTwo(t *testing.T) {
	build(t)
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			example := p.examples(t)[0]
			for _, args := range [][]string{{"apply", example}, {"validate"}, {"plan"}, {"plan", example, "-o", "yaml"}} {
				r := p.run(t, args...)
				if r.code != 2 || !strings.Contains(strings.ToLower(r.stderr), "usage") || r.stdout != "" {
					t.Errorf("%v = exit %d, stdout %q, stderr %q; want exit 2 and usage on stderr", args, r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}

func TestWithoutArgumentsOutsidePulumiAProgramPrintsItsUsage(t *testing.T) {
	build(t)
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			r := p.run(t)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "Usage:") || !strings.Contains(r.stderr, "pulumi up") {
				t.Errorf("no arguments = exit %d, stdout %q, stderr %q; want exit 2 and the usage", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestWithoutArgumentsUnderTheEngineAProgramRunsAsThePulumiProgram(t *testing.T) {
	build(t)
	p := programs[0]
	// The language host hands the program the engine's addresses. These point nowhere and name no
	// project, so the Pulumi SDK gives up with its "error already logged" status, 32: what
	// matters is that it was the SDK's run, not the usage.
	for _, env := range [][]string{{"PULUMI_MONITOR=127.0.0.1:1"}, {"PULUMI_ENGINE=127.0.0.1:1"}} {
		r := p.runEnv(t, env)
		if r.code != 32 || strings.Contains(r.stderr, "usage:") {
			t.Errorf("%v: exit %d, stderr %q; want the Pulumi SDK's exit 32 and no usage", env, r.code, r.stderr)
		}
	}
}

func TestEachProgramLinksOnlyItsOwnCloudsSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("go", "list", "-deps", "./"+p.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps: %v\n%s", err, out)
			}
			// Each cloud's SDK is github.com/pulumi/pulumi-<cloud>; the clouds are the kinds'.
			for _, other := range programs {
				sdk := "github.com/pulumi/pulumi-" + other.cloud + "/"
				links := strings.Contains(string(out), "\n"+sdk)
				if want := other.cloud == p.cloud; links != want {
					t.Errorf("%s links %s: %t, want %t", p.name, sdk, links, want)
				}
			}
		})
	}
}

func TestEveryPulumiProjectBuildsIntoAFileThatStays(t *testing.T) {
	projects, err := filepath.Glob(filepath.Join("*", "Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	projects = append(projects, filepath.Join("..", "..", "examples", "go", "Pulumi.yaml"))
	if len(projects) != len(programs)+1 {
		t.Fatalf("projects = %v, want the %d programs' and the Go example's", projects, len(programs))
	}
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, project := range projects {
		data, err := os.ReadFile(project)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Name    string `json:"name"`
			Runtime struct {
				Name    string            `json:"name"`
				Options map[string]string `json:"options"`
			} `json:"runtime"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", project, err)
		}
		target := doc.Runtime.Options["buildTarget"]
		// The Go language host builds with the project's folder as the working directory.
		abs, err := filepath.Abs(filepath.Join(filepath.Dir(project), target))
		if err != nil {
			t.Fatal(err)
		}
		if doc.Runtime.Name != "go" || target == "" || filepath.IsAbs(target) || abs != filepath.Join(bin, doc.Name) {
			t.Errorf("%s: runtime %q builds into %q, want go building into the git-ignored bin/%s", project,
				doc.Runtime.Name, target, doc.Name)
		}
		if _, ok := doc.Runtime.Options["binary"]; ok {
			t.Errorf("%s sets binary too; Pulumi accepts only one of binary and buildTarget", project)
		}
	}
}
