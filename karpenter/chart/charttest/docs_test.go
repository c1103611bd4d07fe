package charttest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The install steps of docs/karpenter.md create the Secret the chart reads, by its name and its
// keys: a reader who follows them gets a token into the operator, not a Secret nobody reads.
func TestTheDocsCreateTheSecretTheChartReads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "karpenter.md"))
	if err != nil {
		t.Fatal(err)
	}
	created := regexp.MustCompile(`create secret generic (\S+)`).FindStringSubmatch(string(doc))
	if created == nil {
		t.Fatal("docs/karpenter.md creates no Secret")
	}
	var keys []string
	for _, m := range regexp.MustCompile(`--from-literal=(\w+)=|(\w+)="\$\w+_TOKEN"`).FindAllStringSubmatch(string(doc), -1) {
		keys = append(keys, m[1]+m[2])
	}
	e := env(t, render(t, nil))
	for _, token := range []string{"DIGITALOCEAN_TOKEN", "CIVO_TOKEN"} {
		ref, _ := e[token].(map[string]any)["secretKeyRef"].(map[string]any)
		if ref == nil {
			t.Fatalf("the Deployment reads %s from no Secret: %v", token, e[token])
		}
		if ref["name"] != created[1] {
			t.Errorf("%s comes from Secret %v; the docs create %s", token, ref["name"], created[1])
		}
		if !strings.Contains(strings.Join(keys, " "), fmt.Sprint(ref["key"])) {
			t.Errorf("%s comes from key %v; the docs write the keys %v", token, ref["key"], keys)
		}
	}
}

// installDocs are the pages that show the chart's install, from this folder.
var installDocs = []string{
	filepath.Join("..", "..", "..", "docs", "karpenter.md"),
	filepath.Join("..", "..", "README.md"),
	filepath.Join("..", "README.md"),
}

// helmCommand is a helm install or uninstall with its continuation lines joined.
var helmCommand = regexp.MustCompile(`helm (install|uninstall)((?:[^\n]*\\\n)*[^\n]*)`)

// Every helm install and uninstall the docs show names one release, karpenter-clusterplane in
// karpenter, and every install names the image: the chart's default repository is one nobody
// publishes, and a reader who copies an install without --set image pulls nothing.
func TestEveryInstallTheDocsShowNamesOneReleaseAndTheImage(t *testing.T) {
	for _, page := range installDocs {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		commands := helmCommand.FindAllStringSubmatch(string(data), -1)
		if len(commands) == 0 {
			t.Errorf("%s shows no helm install", page)
		}
		for _, c := range commands {
			words := strings.Fields(strings.NewReplacer("\\\n", " ", "`", " ").Replace(c[2]))
			if len(words) == 0 || words[0] != "karpenter-clusterplane" || !slices.Contains(words, "karpenter") {
				t.Errorf("%s: `helm %s%s` is not the release karpenter-clusterplane in the namespace karpenter", page, c[1], c[2])
			}
			if c[1] != "install" || slices.Contains(words, "-f") {
				continue
			}
			for _, set := range []string{"image.repository=", "image.tag="} {
				if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, set) }) {
					t.Errorf("%s: `helm install%s` sets no %s", page, c[2], strings.TrimSuffix(set, "="))
				}
			}
		}
	}
}

// valuesExample is the values file docs/karpenter.md shows, the yaml block after its marker.
var valuesExample = regexp.MustCompile("(?s)<!-- karpenter-install: values -->\\s*```yaml\\n(.*?)```")

// The docs' values example renders with the chart into a Deployment of its image, sets only
// values the chart has (a misspelt key would be ignored by Helm without a word), and sets every
// one a user may change (all but the clouds' table), so that it is complete.
func TestTheDocsValuesExampleIsCompleteAndRenders(t *testing.T) {
	doc, err := os.ReadFile(installDocs[0])
	if err != nil {
		t.Fatal(err)
	}
	m := valuesExample.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/karpenter.md shows no values example (a yaml block after <!-- karpenter-install: values -->)")
	}
	var example, defaults map[string]any
	if err := yaml.Unmarshal(m[1], &example); err != nil {
		t.Fatalf("the values example: %v", err)
	}
	data, err := os.ReadFile(filepath.Join("..", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &defaults); err != nil {
		t.Fatal(err)
	}
	for _, k := range unknownKeys("", example, defaults) {
		t.Errorf("the values example sets %s, which the chart's values.yaml does not have", k)
	}
	for _, k := range unknownKeys("", defaults, example) {
		if k != "clouds" {
			t.Errorf("the values example leaves out %s", k)
		}
	}
	d := render(t, example)["Deployment/karpenter-clusterplane"]
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	image := spec["containers"].([]any)[0].(map[string]any)["image"]
	if want := fmt.Sprintf("%v:%v", dig(example, "image.repository"), dig(example, "image.tag")); image != want {
		t.Errorf("the values example renders the image %v, want %s", image, want)
	}
	if spec["nodeSelector"] == nil {
		t.Error("the values example's nodeSelector is not on the Deployment's pods")
	}
}

// unknownKeys are the dotted paths of m's keys that other does not have. Below a key whose value
// in other is not a map with keys (nodeSelector's {}), any keys are the user's.
func unknownKeys(prefix string, m, other map[string]any) []string {
	var out []string
	for k, v := range m {
		o, ok := other[k]
		if !ok {
			out = append(out, prefix+k)
			continue
		}
		sub, subOK := v.(map[string]any)
		osub, osubOK := o.(map[string]any)
		if subOK && osubOK && len(sub) > 0 && len(osub) > 0 {
			out = append(out, unknownKeys(prefix+k+".", sub, osub)...)
		}
	}
	return out
}

// dig is the value at a dotted path of m, or nil.
func dig(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		sub, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = sub[k]; !ok {
			return nil
		}
	}
	return v
}
