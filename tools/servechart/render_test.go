package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// chartDir is the serve chart; its ci folder holds the values matrix.
const chartDir = "../../deploy/chart"

// object is one rendered document.
type object map[string]any

func (o object) kind() string { return o["kind"].(string) }
func (o object) name() string { return o["metadata"].(map[string]any)["name"].(string) }

// renderObjects is the chart rendered with the values files, by kind/name.
func renderObjects(t *testing.T, valueFiles ...string) (map[string]object, string) {
	t.Helper()
	text, err := render(chartDir, "clusterplane", "clusterplane", valueFiles...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]object{}
	for _, doc := range strings.Split(text, "\n---\n") {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if o != nil {
			out[o.kind()+"/"+o.name()] = o
		}
	}
	return out, text
}

// matrix is the values files of deploy/chart/ci, by name.
func matrix(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir, "ci", "*-values.yaml"))
	if err != nil || len(files) < 5 {
		t.Fatalf("want the values matrix in %s/ci, found %v (%v)", chartDir, files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), "-values.yaml")] = f
	}
	return out
}

// containers is every Deployment's serve container, by Deployment name, with its pod's spec.
func containers(t *testing.T, objs map[string]object) map[string][2]map[string]any {
	t.Helper()
	out := map[string][2]map[string]any{}
	for k, o := range objs {
		if o.kind() != "Deployment" {
			continue
		}
		pod := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		cs := pod["containers"].([]any)
		if len(cs) != 1 {
			t.Fatalf("%s has %d containers, want serve alone", k, len(cs))
		}
		out[o.name()] = [2]map[string]any{cs[0].(map[string]any), pod}
	}
	if len(out) == 0 {
		t.Fatalf("no Deployment among %v", mapsKeys(objs))
	}
	return out
}

func mapsKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func args(c map[string]any) []string {
	var out []string
	for _, a := range c["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// envOf is the container's environment: name → value, or the valueFrom map.
func envOf(c map[string]any) map[string]any {
	out := map[string]any{}
	for _, e := range c["env"].([]any) {
		e := e.(map[string]any)
		if v, ok := e["value"]; ok {
			out[e["name"].(string)] = v
		} else {
			out[e["name"].(string)] = e["valueFrom"]
		}
	}
	return out
}

var (
	helpOnce sync.Once
	helpText string
	helpErr  error
)

// serveHelp is `clusterplane serve --help` of this checkout's clusterplane.
func serveHelp(t *testing.T) string {
	t.Helper()
	helpOnce.Do(func() {
		bin := filepath.Join(os.TempDir(), "servechart-clusterplane")
		build := exec.Command("go", "build", "-o", bin, "./cmd/clusterplane")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			helpErr = err
			helpText = string(out)
			return
		}
		defer os.Remove(bin)
		out, err := exec.Command(bin, "serve", "--help").Output()
		helpText, helpErr = string(out), err
	})
	if helpErr != nil {
		t.Fatalf("clusterplane serve --help: %v\n%s", helpErr, helpText)
	}
	return helpText
}

// serveFlags are the flags `clusterplane serve --help` lists.
func serveFlags(t *testing.T) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z-]*)`).FindAllStringSubmatch(serveHelp(t), -1) {
		out = append(out, m[1])
	}
	return out
}

// knownEnv are the variables the serve container may be given: those `serve --help` names, the
// clouds' (pkg/cloudfacts, read from the source: serve reads them as up does), and the
// engine's and the process's own that the chart sets for a read-only root.
func knownEnv(t *testing.T) []string {
	t.Helper()
	known := regexp.MustCompile(`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b`).FindAllString(serveHelp(t), -1)
	files, _ := filepath.Glob("../../pkg/cloudfacts/*/*.go")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?:TokenEnv|APIURLEnv)\s*=\s*"([A-Z_]+)"`).FindAllStringSubmatch(string(data), -1) {
			known = append(known, m[1])
		}
	}
	return append(known, "HOME", "TMPDIR", "PULUMI_HOME", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_SKIP_UPDATE_CHECK")
}

// secretEnv are the variables that hold a secret: each must come from a Secret.
var secretEnv = []string{"CLUSTERPLANE_DATABASE_URL", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "DIGITALOCEAN_TOKEN", "CIVO_TOKEN"}
