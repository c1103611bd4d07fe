package cli_test

import (
	"bytes"
	"encoding/json"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/exitcode"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const clusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"

var prog = program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
	Name: "digitaloceankubernetescluster",
	NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
		return &v1.DigitalOceanKubernetesClusterStackInput{}
	},
	Resources: module.Resources,
}

var (
	minimal    = filepath.Join("..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml")
	production = filepath.Join("..", "..", "examples", "digitaloceankubernetescluster", "production.stack-input.yaml")
)

// invalidManifest has four mistakes: a metadata name that is no DNS label, no region, a version
// that is no slug and a reserved tag.
const invalidManifest = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: Not_A_Label
spec:
  clusterName: dev-fra1
  kubernetesVersion: latest
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
  tags: [k8s]
`

type result struct {
	code           int
	stdout, stderr string
}

// run runs the program binary's command line in this process, standard input os.Stdin.
func run(args ...string) result {
	return runProgram(prog, args...)
}

func runProgram(p cli.Program, args ...string) result {
	var stdout, stderr bytes.Buffer
	a := &cli.App{Name: "digitaloceankubernetescluster", Programs: []cli.Program{p}, Stdin: os.Stdin, Stdout: &stdout, Stderr: &stderr}
	code := a.Execute(a.ProgramCommand(), args)
	return result{code, stdout.String(), stderr.String()}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidateOfAValidExampleSaysItIsValidAndOfWhichKind(t *testing.T) {
	for _, file := range []string{minimal, production} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			r := run("validate", file)
			if want := file + ": valid DigitalOceanKubernetesCluster\n"; r.code != exitcode.OK || r.stdout != want || r.stderr != "" {
				t.Errorf("validate %s = %d, stdout %q, stderr %q; want 0, %q, nothing", file, r.code, r.stdout, r.stderr, want)
			}
		})
	}
}

// Promise: program-validate-exits-1
func TestValidateOfAnInvalidFileListsEveryViolationOnStderr(t *testing.T) {
	path := writeFile(t, "invalid.yaml", invalidManifest)
	want := stackinput.Problems(stackinput.LoadFile(path, &v1.DigitalOceanKubernetesClusterStackInput{}))
	if len(want) < 4 {
		t.Fatalf("the invalid manifest has only %d problems: %v", len(want), want)
	}
	r := run("validate", path)
	if r.code != exitcode.Invalid {
		t.Errorf("exit code = %d, want %d", r.code, exitcode.Invalid)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	for _, p := range want {
		if line := p.String() + "\n"; !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	for _, field := range []string{"metadata.name", "spec.region", "spec.kubernetesVersion", "spec.tags[0]"} {
		if !strings.Contains(r.stderr, ": "+field+": ") {
			t.Errorf("stderr does not list %s:\n%s", field, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, path) {
		t.Errorf("stderr does not name the file %s:\n%s", path, r.stderr)
	}
}

func TestValidateOfAMissingFileFails(t *testing.T) {
	r := run("validate", filepath.Join(t.TempDir(), "missing.yaml"))
	if r.code != exitcode.Invalid || r.stderr == "" || r.stdout != "" {
		t.Errorf("validate missing.yaml = %+v, want exit 1 with an error on stderr", r)
	}
}

func TestPlanWritesJSONWithTheFlagBeforeOrAfterTheFile(t *testing.T) {
	for _, args := range [][]string{
		{"plan", minimal, "-o", "json"},
		{"plan", "-o", "json", minimal},
		{"plan", "--output", "json", minimal},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := run(args...)
			if r.code != exitcode.OK || r.stderr != "" {
				t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
			}
			var doc struct {
				Resources []struct{ Type, Name string }
				Outputs   map[string]struct {
					Secret bool
					Value  any
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
			}
			types := map[string]bool{}
			for _, res := range doc.Resources {
				types[res.Type] = true
			}
			for _, want := range []string{clusterType, "pulumi:providers:digitalocean", module.TypeToken} {
				if !types[want] {
					t.Errorf("plan has no %s resource: %v", want, doc.Resources)
				}
			}
			if o, ok := doc.Outputs[stackoutputs.DigitalOceanKubernetesClusterKubeconfig]; !ok || !o.Secret || o.Value != "[secret]" {
				t.Errorf("kubeconfig output = %+v, want a masked secret", o)
			}
		})
	}
}

func TestPlanWritesTheSameJSONWhereverTheFlagIs(t *testing.T) {
	before, after := run("plan", "-o", "json", minimal), run("plan", minimal, "-o", "json")
	if before.stdout != after.stdout {
		t.Errorf("plan -o json FILE and plan FILE -o json differ:\n%s\n---\n%s", before.stdout, after.stdout)
	}
}

// Promise: program-plan-exits-0-or-1
func TestPlanWritesTextByDefault(t *testing.T) {
	for _, args := range [][]string{{"plan", minimal}, {"plan", minimal, "-o", "text"}} {
		r := run(args...)
		if r.code != exitcode.OK || r.stderr != "" {
			t.Fatalf("%v: exit code %d, stderr %q", args, r.code, r.stderr)
		}
		for _, want := range []string{"RESOURCES", "OUTPUTS", clusterType} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: text plan lacks %q:\n%s", args, want, r.stdout)
			}
		}
		if json.Valid([]byte(r.stdout)) {
			t.Errorf("%v: the text plan is JSON", args)
		}
	}
}

func TestPlanOfAnInvalidFileListsTheViolationsAndPlansNothing(t *testing.T) {
	path := writeFile(t, "invalid.yaml", invalidManifest)
	r := run("plan", path, "-o", "json")
	if r.code != exitcode.Invalid || r.stdout != "" {
		t.Errorf("plan invalid.yaml = exit %d, stdout %q; want exit 1 and nothing on stdout", r.code, r.stdout)
	}
	for _, field := range []string{"metadata.name", "spec.region", "spec.kubernetesVersion", "spec.tags[0]"} {
		if !strings.Contains(r.stderr, ": "+field+": ") {
			t.Errorf("stderr does not list %s:\n%s", field, r.stderr)
		}
	}
}

// Promise: program-by-hand-exits-2
func TestBadUsageExitsWithTwoAndPrintsUsageOnStderr(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no arguments", []string{}},
		{"an unknown command", []string{"apply", minimal}},
		{"validate without a file", []string{"validate"}},
		{"plan without a file", []string{"plan"}},
		{"plan with only a flag", []string{"plan", "-o", "json"}},
		{"plan with two files", []string{"plan", minimal, production}},
		{"plan with an unknown format", []string{"plan", minimal, "-o", "yaml"}},
		{"plan with a flag missing its value", []string{"plan", minimal, "-o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.args...)
			if r.code != exitcode.Usage {
				t.Errorf("exit code = %d, want %d", r.code, exitcode.Usage)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			if !strings.Contains(r.stderr, "Usage:") && !strings.Contains(r.stderr, "--help' for usage") {
				t.Errorf("stderr neither shows the usage nor says where it is:\n%s", r.stderr)
			}
		})
	}
}

func TestHelpPrintsUsageOnStdout(t *testing.T) {
	for _, arg := range []string{"help", "-h", "--help"} {
		r := run(arg)
		if r.code != exitcode.OK || !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, "validate") || r.stderr != "" {
			t.Errorf("%s = %+v, want exit 0 and usage on stdout", arg, r)
		}
	}
}

// Promise: tokens-never-shown
func TestNoCommandShowsTheProviderToken(t *testing.T) {
	const envToken, fileToken = "tok-SENTINEL-ENV-123", "tok-SENTINEL-FILE-456"
	t.Setenv(digitalocean.TokenEnv, envToken)
	underTarget := func(manifest string) string {
		return "target:\n  " + strings.ReplaceAll(strings.TrimSpace(manifest), "\n", "\n  ") + "\n" +
			"providerConfig:\n  apiToken: " + fileToken + "\n"
	}
	example, err := os.ReadFile(minimal)
	if err != nil {
		t.Fatal(err)
	}
	valid := writeFile(t, "valid.stack-input.yaml", underTarget(string(example)))
	invalid := writeFile(t, "invalid.stack-input.yaml", underTarget(invalidManifest))
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"validate", minimal}, exitcode.OK},
		{[]string{"plan", minimal}, exitcode.OK},
		{[]string{"plan", minimal, "-o", "json"}, exitcode.OK},
		{[]string{"validate", valid}, exitcode.OK},
		{[]string{"plan", valid}, exitcode.OK},
		{[]string{"plan", valid, "-o", "json"}, exitcode.OK},
		{[]string{"validate", invalid}, exitcode.Invalid},
		{[]string{"plan", invalid, "-o", "json"}, exitcode.Invalid},
	}
	for _, tt := range tests {
		r := run(tt.args...)
		if r.code != tt.code {
			t.Errorf("%v: exit code %d, want %d; stderr:\n%s", tt.args, r.code, tt.code, r.stderr)
		}
		for _, token := range []string{envToken, fileToken} {
			if strings.Contains(r.stdout+r.stderr, token) {
				t.Errorf("%v shows the token %s", tt.args, token)
			}
		}
		if tt.code == exitcode.OK && len(tt.args) == 4 {
			var doc struct {
				Resources []struct {
					Type   string
					Inputs map[string]any
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("%v: %v", tt.args, err)
			}
			for _, res := range doc.Resources {
				if res.Type == "pulumi:providers:digitalocean" && res.Inputs["token"] != "[secret]" {
					t.Errorf("%v: provider token input = %v, want [secret]", tt.args, res.Inputs["token"])
				}
			}
		}
	}
}

// Promise: program-validate-exits-1
func TestValidateReadsStandardInputAndWritesJSONForCI(t *testing.T) {
	path := writeFile(t, "invalid.yaml", invalidManifest)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write(data); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = stdin
	defer func() { os.Stdin = saved }()
	r := run("validate", "-", "-o", "json")
	if r.code != exitcode.Invalid {
		t.Errorf("exit = %d, want %d", r.code, exitcode.Invalid)
	}
	var verdicts []struct {
		File     string               `json:"file"`
		Valid    bool                 `json:"valid"`
		Problems []stackinput.Problem `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &verdicts); err != nil || len(verdicts) != 1 {
		t.Fatalf("stdout is not a JSON list of one verdict: %v\n%s", err, r.stdout)
	}
	out := verdicts[0]
	if out.File != "-" || out.Valid || len(out.Problems) < 4 {
		t.Fatalf("got %+v, want file -, invalid, every problem", out)
	}
	for _, p := range out.Problems {
		if p.Line == 0 || p.Column == 0 || p.Path == "" || p.RuleID == "" || p.Message == "" {
			t.Errorf("problem %+v lacks a position, path, rule id or message", p)
		}
	}
}

// Promise: exit-codes
func TestACrashIsNeverTakenForInvalidInputOrUsage(t *testing.T) {
	crashing := program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
		Name: "crashing",
		NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
			return &v1.DigitalOceanKubernetesClusterStackInput{}
		},
		Resources: func(*pulumi.Context, *v1.DigitalOceanKubernetesClusterStackInput) error {
			panic("a bug")
		},
	}
	r := runProgram(crashing, "plan", minimal)
	if r.code != exitcode.Crash || !strings.Contains(r.stderr, "internal error") {
		t.Errorf("exit = %d, stderr %q; want %d and an internal error", r.code, r.stderr, exitcode.Crash)
	}
}

func TestDiffOfStandardInputAgainstItselfIsAUsageErrorNotAnEmptyFile(t *testing.T) {
	r := run("diff", "-", "-")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "standard input (-) given twice") {
		t.Errorf("diff - - = %d %q, want a usage error saying stdin is given twice", r.code, r.stderr)
	}
}
