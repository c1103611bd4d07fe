package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cli"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"google.golang.org/protobuf/reflect/protoreflect"
)

var examples = filepath.Join("..", "..", "examples")

type result struct {
	code           int
	stdout, stderr string
}

// run runs clusterplane in this process with the real programs, stdin and no credentials in
// the environment.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runWith(t, registry.Kinds(), stdin, args...)
}

// programs are the kinds clusterplane serves.
var programs = registry.Kinds()

// runProgram runs the command line of kind's program binary in this process.
func runProgram(k kinds.Kind, args ...string) result {
	var stdout, stderr bytes.Buffer
	a := &cli.App{Name: k.Project, Programs: []cli.Program{k.Offline}, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}
	code := a.Execute(a.ProgramCommand(), args)
	return result{code, stdout.String(), stderr.String()}
}

func runWith(t *testing.T, ks kinds.List, stdin string, args ...string) result {
	t.Helper()
	for _, env := range []string{civodriver.TokenEnv, digitalocean.TokenEnv, civodriver.APIURLEnv,
		digitalocean.APIURLEnv, stackinput.FileEnv} {
		t.Setenv(env, "")
	}
	var stdout, stderr bytes.Buffer
	code := newApp(ks, strings.NewReader(stdin), &stdout, &stderr).run(args)
	return result{code, stdout.String(), stderr.String()}
}

// exampleFiles are the manifests and stack inputs under examples/, as validate names them.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examples, "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		// examples/ci holds CI workflows, which e2e runs, and examples/policy policy files, which
		// policy_test.go runs; validate skips both as other YAML.
		if dir := filepath.Base(filepath.Dir(f)); filepath.Base(f) != "Pulumi.yaml" && dir != "ci" && dir != "policy" {
			out = append(out, f)
		}
	}
	if len(out) < 8 {
		t.Fatalf("only %d examples found", len(out))
	}
	return out
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readExample(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examples, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestValidateOfTheExamplesDirectoryCallsEveryFileValidAndSkipsTheProjectFile(t *testing.T) {
	r := run(t, "", "validate", examples)
	if r.code != exitcode.OK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, f := range exampleFiles(t) {
		kind := ""
		for _, k := range programs {
			if k.Project == filepath.Base(filepath.Dir(f)) {
				kind = k.Name
			}
		}
		if line := f + ": valid " + kind + "\n"; !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
	projects, err := filepath.Glob(filepath.Join(examples, "*", "Pulumi.yaml"))
	if err != nil || len(projects) == 0 {
		t.Fatalf("no Pulumi project files under examples: %v", err)
	}
	for _, f := range projects {
		if line := f + ": skipped, " + files.SkipReason + "\n"; !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
	// Skipped are the Pulumi projects and the files of the programs in them (a package.json).
	skipped := strings.Count(r.stdout, ": skipped, "+files.SkipReason+"\n")
	if want := fmt.Sprintf("%d valid, 0 invalid, %d skipped\n", len(exampleFiles(t)), skipped); !strings.HasSuffix(r.stdout, want) || skipped < len(projects) {
		t.Errorf("stdout does not end with %q:\n%s", want, r.stdout)
	}
}

const badName = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: Bad_Name
spec:
  clusterName: dev
`

// Promise: validate-exits-1
func TestValidateOfADirectoryWithInvalidFilesNamesEveryOneAndExitsOne(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"good.yaml":               readExample(t, "civokubernetescluster/minimal.yaml"),
		"good.stack-input.yaml":   readExample(t, "digitaloceankubernetesnodepool/gpu.stack-input.yaml"),
		"bad-rules.yaml":          badName,
		"nested/unknown.yml":      "apiVersion: civo.clusterplane.dev/v1\nkind: CivoKubernetesClustr\n",
		"nested/extra-field.json": `{"target": {"kind": "DigitalOceanKubernetesNodePool", "extra": 1}}`,
		"broken.yaml":             "a: [\n",
		"Pulumi.yaml":             "name: x\nruntime: go\n",
		"Pulumi.dev.yaml":         "config:\n  x:stackInput: y\n",
		"list.yaml":               "- a\n- b\n",
		"notes.txt":               "not looked at",
		".hidden/bad.yaml":        badName,
	})
	r := run(t, "", "validate", dir)
	if r.code != exitcode.Invalid {
		t.Errorf("exit %d, want %d", r.code, exitcode.Invalid)
	}
	for _, name := range []string{"bad-rules.yaml", "nested/unknown.yml", "nested/extra-field.json", "broken.yaml"} {
		if !strings.Contains(r.stderr, filepath.Join(dir, name)+":") {
			t.Errorf("stderr does not name %s:\n%s", name, r.stderr)
		}
	}
	for _, want := range []string{": metadata.name: ", ": spec.region: ", `unknown kind "CivoKubernetesClustr"`, ": target.extra: unknown field"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, name := range []string{"good.yaml", "good.stack-input.yaml"} {
		if !strings.Contains(r.stdout, filepath.Join(dir, name)+": valid ") {
			t.Errorf("stdout does not call %s valid:\n%s", name, r.stdout)
		}
	}
	for _, name := range []string{"Pulumi.yaml", "Pulumi.dev.yaml", "list.yaml"} {
		if !strings.Contains(r.stdout, filepath.Join(dir, name)+": skipped") {
			t.Errorf("stdout does not skip %s:\n%s", name, r.stdout)
		}
	}
	for _, name := range []string{"notes.txt", ".hidden"} {
		if strings.Contains(r.stdout+r.stderr, name) {
			t.Errorf("validate looked at %s:\n%s%s", name, r.stdout, r.stderr)
		}
	}
	if !strings.HasSuffix(r.stdout, "2 valid, 4 invalid, 3 skipped\n") {
		t.Errorf("stdout does not end with the counts:\n%s", r.stdout)
	}
}

func TestValidateReportsInTheProgramsWords(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bad.yaml": badName})
	file := filepath.Join(dir, "bad.yaml")
	want := runWith(t, programs, "", "validate", file)
	got := runProgram(programs[0], "validate", file)
	if want.code != got.code || want.stderr != got.stderr {
		t.Errorf("clusterplane validate = exit %d, stderr:\n%s\nthe program's validate = exit %d, stderr:\n%s",
			want.code, want.stderr, got.code, got.stderr)
	}
}

func TestValidateOfAFileNamedExplicitlyThatIsNoManifestFails(t *testing.T) {
	dir := writeFiles(t, map[string]string{"Pulumi.yaml": "name: x\n", "list.yaml": "- a\n",
		"good.yaml": readExample(t, "civokubernetescluster/minimal.yaml")})
	tests := []struct{ name, want string }{
		{"Pulumi.yaml", "names no kind"},
		{"list.yaml", "not a mapping"},
		{"missing.yaml", "no such file"},
	}
	for _, tt := range tests {
		r := run(t, "", "validate", filepath.Join(dir, "good.yaml"), filepath.Join(dir, tt.name))
		if r.code != exitcode.Invalid || !strings.Contains(r.stderr, filepath.Join(dir, tt.name)) || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("validate good.yaml %s = exit %d, stderr %q; want exit 1 naming the file and %q", tt.name, r.code, r.stderr, tt.want)
		}
	}
}

func TestValidateOfADirectoryWithoutManifestsFails(t *testing.T) {
	dir := writeFiles(t, map[string]string{"Pulumi.yaml": "name: x\n"})
	r := run(t, "", "validate", dir)
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "no manifest or stack input in "+dir) {
		t.Errorf("exit %d, stderr %q; want exit 1 saying there is nothing to validate", r.code, r.stderr)
	}
}

func TestValidateReadsStandardInput(t *testing.T) {
	r := run(t, readExample(t, "digitaloceankubernetescluster/minimal.yaml"), "validate", "-")
	if r.code != exitcode.OK || r.stdout != "-: valid DigitalOceanKubernetesCluster\n" {
		t.Errorf("validate - = %+v", r)
	}
	r = run(t, badName, "validate", "-")
	if r.code != exitcode.Invalid || !strings.HasPrefix(r.stderr, "-:4:3: metadata.name: ") {
		t.Errorf("validate - of an invalid manifest = %+v", r)
	}
	if r := run(t, "", "validate", "-", "-"); r.code != exitcode.Usage {
		t.Errorf("validate - - = exit %d, want %d", r.code, exitcode.Usage)
	}
}

func TestValidateWritesJSON(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bad.yaml": badName, "Pulumi.yaml": "name: x\n",
		"good.yaml": readExample(t, "civokubernetesnodepool/gpu.yaml")})
	r := run(t, "", "validate", "-o", "json", dir)
	if r.code != exitcode.Invalid || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var got []struct {
		File, Kind, Status, Reason string
		Problems                   []struct {
			Line, Column          int
			Path, RuleID, Message string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if len(got) != 3 {
		t.Fatalf("%d verdicts, want 3:\n%s", len(got), r.stdout)
	}
	byStatus := map[string]string{}
	for _, v := range got {
		byStatus[v.Status] = filepath.Base(v.File)
	}
	if byStatus["valid"] != "good.yaml" || byStatus["invalid"] != "bad.yaml" || byStatus["skipped"] != "Pulumi.yaml" {
		t.Errorf("verdicts = %+v", got)
	}
	for _, v := range got {
		if v.Status == "invalid" && !slices.ContainsFunc(v.Problems, func(x struct {
			Line, Column          int
			Path, RuleID, Message string
		}) bool {
			return x.Path == "metadata.name" && x.RuleID == "string.pattern" && x.Line == 4 && x.Column == 3 && x.Message != ""
		}) {
			t.Errorf("bad.yaml's problems lack metadata.name at 4:3: %+v", v.Problems)
		}
		if v.Status == "skipped" && v.Reason != files.SkipReason {
			t.Errorf("skip reason = %q", v.Reason)
		}
	}
}

func TestPlanIsTheProgramsPlan(t *testing.T) {
	for _, file := range []string{"civokubernetesnodepool/gpu.yaml", "digitaloceankubernetescluster/production.stack-input.yaml"} {
		for _, format := range []string{"text", "json"} {
			path := filepath.Join(examples, file)
			r := run(t, "", "plan", path, "-o", format)
			if r.code != exitcode.OK || r.stderr != "" || r.stdout == "" {
				t.Fatalf("plan %s -o %s = exit %d, stderr %q", file, format, r.code, r.stderr)
			}
			k := programs[slices.IndexFunc(programs, func(k kinds.Kind) bool { return k.Project == filepath.Dir(file) })]
			if got := runProgram(k, "plan", path, "-o", format); got.code != 0 || got.stdout != r.stdout {
				t.Errorf("clusterplane plan %s -o %s differs from the program's plan (exit %d):\n%s\n---\n%s",
					file, format, got.code, r.stdout, got.stdout)
			}
		}
	}
}

// Promise: tokens-never-shown
func TestPlanNeverShowsAToken(t *testing.T) {
	const token = "tok-SENTINEL-789"
	text := strings.Replace(readExample(t, "civokubernetescluster/minimal.stack-input.yaml"), "providerConfig: {}",
		"providerConfig:\n  apiToken: "+token, 1)
	dir := writeFiles(t, map[string]string{"si.yaml": text})
	for _, args := range [][]string{{"plan", filepath.Join(dir, "si.yaml"), "-o", "json"}, {"plan", filepath.Join(dir, "si.yaml")},
		{"validate", dir, "-o", "json"}} {
		r := run(t, "", args...)
		if r.code != exitcode.OK || strings.Contains(r.stdout+r.stderr, token) {
			t.Errorf("%v = exit %d, and shows the token: %t", args, r.code, strings.Contains(r.stdout+r.stderr, token))
		}
	}
}

// Promise: validate-exits-1
func TestPlanOfAnInvalidOrUnknownFileExitsOne(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bad.yaml": badName, "Pulumi.yaml": "name: x\n"})
	for _, name := range []string{"bad.yaml", "Pulumi.yaml", "missing.yaml"} {
		r := run(t, "", "plan", filepath.Join(dir, name))
		if r.code != exitcode.Invalid || r.stdout != "" || !strings.Contains(r.stderr, filepath.Join(dir, name)) {
			t.Errorf("plan %s = %+v; want exit 1 naming the file", name, r)
		}
	}
}

// recording is a program that records the diffs it is asked for and answers code.
type recording struct {
	cli.Program
	calls *[][]string
	code  int
}

func (r recording) Diff(oldFile, newFile program.File, format string, allowReplace bool, stdout, _ io.Writer) int {
	call := []string{"diff", oldFile.Name, newFile.Name, format}
	if allowReplace {
		call = append(call, "--allow-replace")
	}
	if len(oldFile.Data) == 0 || len(newFile.Data) == 0 {
		call = append(call, "without the files' text")
	}
	*r.calls = append(*r.calls, call)
	io.WriteString(stdout, "diffed\n")
	return r.code
}

// recorder is a kind whose program records the diffs it is asked for.
func recorder(name string, calls *[][]string, code int) kinds.Kind {
	k := programs[slices.IndexFunc(programs, func(k kinds.Kind) bool { return k.Name == name })]
	k.Offline = recording{Program: k.Offline, calls: calls, code: code}
	return k
}

func TestDiffHandsBothFilesAndItsFlagsToTheKindsProgram(t *testing.T) {
	old := filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml")
	updated := filepath.Join(examples, "digitaloceankubernetescluster", "production.stack-input.yaml")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"diff", old, updated}, []string{"diff", old, updated, "text"}},
		{[]string{"diff", old, updated, "-o", "json"}, []string{"diff", old, updated, "json"}},
		{[]string{"diff", "--allow-replace", old, updated, "-o", "text"}, []string{"diff", old, updated, "text", "--allow-replace"}},
	}
	for _, tt := range tests {
		var calls [][]string
		ks := kinds.List{recorder("CivoKubernetesCluster", &calls, 0), recorder("DigitalOceanKubernetesCluster", &calls, 3)}
		r := runWith(t, ks, "", tt.args...)
		if r.code != 3 || r.stdout != "diffed\n" {
			t.Errorf("%v = %+v; want the program's exit code 3 and output", tt.args, r)
		}
		if len(calls) != 1 || !slices.Equal(calls[0], tt.want) {
			t.Errorf("%v ran the program with %v, want %v", tt.args, calls, tt.want)
		}
	}
}

func TestDiffOfTwoKindsOrOneFileIsAUsageError(t *testing.T) {
	var calls [][]string
	ks := kinds.List{recorder("CivoKubernetesCluster", &calls, 0), recorder("DigitalOceanKubernetesCluster", &calls, 0)}
	civo := filepath.Join(examples, "civokubernetescluster", "minimal.yaml")
	do := filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml")
	for _, args := range [][]string{{"diff", civo, do}, {"diff", civo}, {"diff", "-", "-"}, {"diff", civo, civo, "-o", "yaml"}} {
		if r := runWith(t, ks, "", args...); r.code != exitcode.Usage || !strings.Contains(r.stderr, "clusterplane diff --help") {
			t.Errorf("%v = %+v, want a usage error", args, r)
		}
	}
	if len(calls) != 0 {
		t.Errorf("the program ran: %v", calls)
	}
}

func TestExplainPrintsAFieldsDocumentationTypeRulesAndDefault(t *testing.T) {
	const field = "clusterplane.provider.digitalocean.digitaloceankubernetescluster.v1.DigitalOceanKubernetesClusterDefaultNodePool.size"
	doc := apidoc.Comment(field)
	if doc == "" {
		t.Fatalf("%s has no comment", field)
	}
	r := run(t, "", "explain", "DigitalOceanKubernetesCluster.spec.defaultNodePool.size")
	if r.code != exitcode.OK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"KIND:     DigitalOceanKubernetesCluster\n",
		"VERSION:  digitalocean.clusterplane.dev/v1\n",
		"FIELD:    spec.defaultNodePool.size <string>\n",
		"    " + strings.ReplaceAll(doc, "\n", "\n    ") + "\n",
		"RULES:\n    - required: must be set and not empty\n",
		"DEFAULT:\n    none: a manifest must set it\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestExplainAsksTheEffectHookWithTheKindAndManifestPath(t *testing.T) {
	var asked []string
	for _, query := range []string{"DigitalOceanKubernetesCluster.spec.defaultNodePool.size",
		"DigitalOceanKubernetesClusterStackInput.target.spec.defaultNodePool.size"} {
		var stdout, stderr bytes.Buffer
		a := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
		a.f.explainer.Effect = func(kind, path string) string {
			asked = append(asked, kind+" "+path)
			return "replaces the cluster"
		}
		code := a.run([]string{"explain", query})
		if code != exitcode.OK || !strings.Contains(stdout.String(), "\nCHANGING IT:\n    replaces the cluster\n") {
			t.Errorf("explain %s = exit %d:\n%s", query, code, stdout.String())
		}
	}
	want := []string{"DigitalOceanKubernetesCluster spec.defaultNodePool.size", "DigitalOceanKubernetesCluster spec.defaultNodePool.size"}
	if !slices.Equal(asked, want) {
		t.Errorf("the hook was asked %v, want %v", asked, want)
	}
}

func TestExplainSaysWhatChangingAFieldDoesFromTheEffectsTable(t *testing.T) {
	r := run(t, "", "explain", "DigitalOceanKubernetesCluster.spec.defaultNodePool.size")
	want := "\nCHANGING IT:\n    replace (digitalocean:index/kubernetesCluster:KubernetesCluster): the default pool's droplet size is fixed"
	if r.code != exitcode.OK || !strings.Contains(r.stdout, want) {
		t.Errorf("explain = exit %d, want %q in:\n%s", r.code, want, r.stdout)
	}
	r = run(t, "", "explain", "CivoKubernetesNodePool.spec.nodeCount")
	if !strings.Contains(r.stdout, "update (clusterplane:civo:NodePool): the plugin scales the pool in place") {
		t.Errorf("explain of a Civo pool's nodeCount does not say the plugin scales it in place:\n%s", r.stdout)
	}
}

func TestExplainListsTheFieldsOfAMessageAndTheValuesOfAnEnum(t *testing.T) {
	r := run(t, "", "explain", "CivoKubernetesNodePool.spec")
	for _, want := range []string{"FIELDS:\n", "  nodePoolName ", "<string> -required-", "  taints ", "<[]object>", "  labels ", "<map[string]string>"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain CivoKubernetesNodePool.spec lacks %q:\n%s", want, r.stdout)
		}
	}
	r = run(t, "", "explain", "CivoKubernetesCluster.spec.defaultNodePool.taints[0].effect")
	for _, want := range []string{"VALUES:\n", "NoSchedule ", "PreferNoSchedule ", "NoExecute "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain of a taint's effect lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "UNSPECIFIED") {
		t.Errorf("explain offers the unset value:\n%s", r.stdout)
	}
	r = run(t, "", "explain", "CivoKubernetesNodePool", "--recursive")
	if !strings.Contains(r.stdout, "\n      effect ") || r.code != exitcode.OK {
		t.Errorf("explain --recursive does not reach a taint's effect:\n%s", r.stdout)
	}
}

func TestExplainOfAnUnknownKindOrFieldIsAUsageErrorThatSaysWhatExists(t *testing.T) {
	tests := []struct{ query, want string }{
		{"Cluster", "one of: CivoKubernetesCluster,"},
		{"CivoKubernetesCluster.spec.size", `no field "size" in CivoKubernetesCluster.spec; its fields are: clusterName,`},
		{"CivoKubernetesCluster.spec.clusterName.x", "spec.clusterName is a string and has no fields"},
	}
	for _, tt := range tests {
		r := run(t, "", "explain", tt.query)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("explain %s = %+v, want exit 2 and %q", tt.query, r, tt.want)
		}
	}
}

func TestExplainTakesAKindByTheLowerCaseNameKindsPrints(t *testing.T) {
	for _, query := range []string{"digitaloceankubernetescluster", "civokubernetesnodepool.spec.nodeCount"} {
		lower := run(t, "", "explain", query)
		kind, field, _ := strings.Cut(query, ".")
		proper := kind
		for _, k := range programs {
			if strings.EqualFold(k.Name, kind) {
				proper = k.Name
			}
		}
		if field != "" {
			proper += "." + field
		}
		want := run(t, "", "explain", proper)
		if lower.code != exitcode.OK || lower.stdout != want.stdout {
			t.Errorf("explain %s = exit %d\n%s\nwant what explain %s says:\n%s", query, lower.code, lower.stdout+lower.stderr, proper, want.stdout)
		}
	}
}

func TestExplainCompletesKindsAndFieldPaths(t *testing.T) {
	r := run(t, "", "__complete", "explain", "DigitalOceanKubernetesCluster.spec.defaultNodePool.n")
	for _, want := range []string{"DigitalOceanKubernetesCluster.spec.defaultNodePool.nodePoolName\n", "DigitalOceanKubernetesCluster.spec.defaultNodePool.nodeCount\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("completion lacks %q:\n%s", want, r.stdout)
		}
	}
	r = run(t, "", "__complete", "explain", "Civo")
	if !strings.Contains(r.stdout, "CivoKubernetesNodePool\n") || strings.Contains(r.stdout, "DigitalOcean") {
		t.Errorf("completion of Civo = %s", r.stdout)
	}
}

func TestSchemaPrintsTheCommittedSchemas(t *testing.T) {
	for _, k := range programs {
		for _, stackInput := range []bool{false, true} {
			args := []string{"schema", k.Name}
			file := strings.ToLower(k.Name) + ".schema.json"
			if stackInput {
				args = append(args, "--stack-input")
				file = strings.ToLower(k.Name) + ".stack-input.schema.json"
			}
			want, err := os.ReadFile(filepath.Join("..", "..", "schemas", file))
			if err != nil {
				t.Fatal(err)
			}
			if r := run(t, "", args...); r.code != exitcode.OK || r.stdout != string(want) {
				t.Errorf("%v = exit %d and differs from schemas/%s", args, r.code, file)
			}
		}
	}
	r := run(t, "", "schema")
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "schemas/civokubernetesnodepool.stack-input.schema.json") {
		t.Errorf("schema = %+v", r)
	}
	if r := run(t, "", "schema", "EksCluster"); r.code != exitcode.Usage {
		t.Errorf("schema of an unknown kind = exit %d, want 2", r.code)
	}
}

func TestKindsAndRegionsListWhatManifestsMayName(t *testing.T) {
	r := run(t, "", "kinds")
	for _, k := range programs {
		if !strings.Contains(r.stdout, k.Name+" ") || !strings.Contains(r.stdout, "iac/pulumi/"+k.Project+" ") {
			t.Errorf("kinds lacks %s:\n%s", k.Name, r.stdout)
		}
	}
	for _, d := range clouds.All() {
		cloud := string(d.ID())
		r := run(t, "", "regions", cloud)
		regions := d.Regions()
		if len(regions) == 0 {
			t.Fatalf("the regions table has no %s regions", cloud)
		}
		for _, region := range regions {
			if !strings.Contains(r.stdout, "\n"+region.Name+" ") || !strings.Contains(r.stdout, region.Where) {
				t.Errorf("regions %s does not list %s, %s:\n%s", cloud, region.Name, region.Where, r.stdout)
			}
		}
	}
	if r := run(t, "", "regions", "aws"); r.code != exitcode.Usage {
		t.Errorf("regions aws = exit %d, want 2", r.code)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"validate"}, {"validate", "-o", "yaml", examples}, {"plan"},
		{"plan", "a.yaml", "b.yaml"}, {"explain"}, {"kinds", "x"}, {"regions"}, {"--nope"}} {
		r := run(t, "", args...)
		if r.code != exitcode.Usage || r.stdout != "" || !strings.Contains(r.stderr, "--help' for usage") {
			t.Errorf("%v = %+v, want exit 2 and a hint on stderr", args, r)
		}
	}
}

func TestHelpVersionAndCompletionExitZero(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "Available Commands:"},
		{[]string{"--help"}, "Available Commands:"},
		{[]string{"version"}, "clusterplane "},
		{[]string{"completion", "bash"}, "__start_clusterplane"},
		{[]string{"completion", "zsh"}, "#compdef clusterplane"},
	} {
		r := run(t, "", tt.args...)
		if r.code != exitcode.OK || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("%v = exit %d, stdout lacks %q", tt.args, r.code, tt.want)
		}
	}
}

func TestTheProgramsAreTheFourKinds(t *testing.T) {
	var names []string
	for _, k := range programs {
		names = append(names, k.Name)
		if k.StackInput().Fields().ByName("target").Message().Name() != protoreflect.Name(k.Name) {
			t.Errorf("%s's stack input deploys %s", k.Name, k.StackInput().Fields().ByName("target").Message().Name())
		}
	}
	var want []string
	for _, md := range registry.Kinds().StackInputs() {
		want = append(want, string(kinds.Manifest(md).Name()))
	}
	if !slices.Equal(names, want) {
		t.Errorf("programs = %v, want the kinds the schemas are generated for, %v", names, want)
	}
}

func BenchmarkValidateAllExamples(b *testing.B) {
	a := newApp(programs, strings.NewReader(""), io.Discard, io.Discard)
	for b.Loop() {
		if code := a.run([]string{"validate", examples}); code != exitcode.OK {
			b.Fatalf("exit %d", code)
		}
	}
}

// Promise: readme-diff-names-refused-changes-and-cost
func TestDiffOfTwoRealManifestsSaysWhatDeployingTheNewOneDoes(t *testing.T) {
	old := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	dir := writeFiles(t, map[string]string{
		"old.yaml": old,
		"new.yaml": strings.Replace(old, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb", 1),
	})
	r := run(t, "", "diff", filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml"), "-o", "json")
	if r.code != exitcode.Blocked || !strings.Contains(r.stdout, `"path": "spec.defaultNodePool.size"`) ||
		!strings.Contains(r.stdout, `"effect": "refused"`) {
		t.Errorf("diff = exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
