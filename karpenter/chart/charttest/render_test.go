// Package charttest renders the Helm chart with Helm's own engine (helm.sh/helm/v3, a test-only
// dependency) and checks what it would install.
package charttest

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

// testImage is the image every render names unless its values name one: the chart has no default.
const testImage = "registry.example.com/karpenter-clusterplane"

// render is the chart's objects with values over its defaults, by kind/name, the image's
// repository testImage unless values name one.
func render(t *testing.T, values map[string]any) map[string]map[string]any {
	t.Helper()
	image, _ := values["image"].(map[string]any)
	if _, ok := image["repository"]; !ok {
		withImage := map[string]any{"repository": testImage}
		for k, v := range image {
			withImage[k] = v
		}
		values = maps.Clone(values)
		if values == nil {
			values = map[string]any{}
		}
		values["image"] = withImage
	}
	files, err := renderFiles(values)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for name, text := range files {
		for _, doc := range strings.Split(text, "\n---") {
			if strings.TrimSpace(doc) == "" || strings.HasSuffix(name, ".tpl") {
				continue
			}
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
			if obj == nil {
				continue
			}
			meta, _ := obj["metadata"].(map[string]any)
			out[obj["kind"].(string)+"/"+meta["name"].(string)] = obj
		}
	}
	return out
}

// renderFiles is what Helm renders of the chart with values over its defaults, by file name.
func renderFiles(values map[string]any) (map[string]string, error) {
	ch, err := loader.Load("..")
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "karp", Namespace: "karpenter"}, nil)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, vals)
}

// image is the controller container's image.
func image(t *testing.T, objs map[string]map[string]any) string {
	t.Helper()
	d := objs["Deployment/karpenter-clusterplane"]
	if d == nil {
		t.Fatalf("no Deployment in %v", keys(objs))
	}
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return fmt.Sprint(spec["containers"].([]any)[0].(map[string]any)["image"])
}

// Nothing publishes the operator's image: without image.repository the chart renders nothing and
// says which value to set, rather than a Deployment whose pods pull an image nobody pushed.
// Promise: karpenter-chart-refuses-no-image
func TestTheChartRefusesToRenderWithoutTheImageNamingIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
	}{
		{"the defaults", nil},
		{"an empty repository", map[string]any{"image": map[string]any{"repository": "", "tag": "v0.1.0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderFiles(tc.values)
			if err == nil || !strings.Contains(err.Error(), "image.repository: the registry and name you pushed") {
				t.Errorf("render: %v, want an error naming image.repository", err)
			}
		})
	}
}

// The image's tag defaults to the chart's appVersion, the tag `make images VERSION=v<version>`
// gives the release's image (tools/images holds that appVersion to the release's tag): an
// install that names only the repository pulls what the release pushed.
func TestTheImagesTagDefaultsToTheReleasesTag(t *testing.T) {
	ch, err := loader.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	if want := "v" + ch.Metadata.Version; ch.Metadata.AppVersion != want {
		t.Errorf("the chart's appVersion is %q, want %s, its release's tag", ch.Metadata.AppVersion, want)
	}
	if got, want := image(t, render(t, nil)), testImage+":"+ch.Metadata.AppVersion; got != want {
		t.Errorf("the image is %s, want %s", got, want)
	}
	tagged := render(t, map[string]any{"image": map[string]any{"tag": "v9.9.9"}})
	if got, want := image(t, tagged), testImage+":v9.9.9"; got != want {
		t.Errorf("with image.tag v9.9.9 the image is %s, want %s", got, want)
	}
}

// env is the controller container's environment as name → its value or value source.
func env(t *testing.T, objs map[string]map[string]any) map[string]any {
	t.Helper()
	d := objs["Deployment/karpenter-clusterplane"]
	if d == nil {
		t.Fatalf("no Deployment in %v", keys(objs))
	}
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	c := spec["containers"].([]any)[0].(map[string]any)
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

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Promise: karpenter-chart-never-writes-a-token
// Promise: karpenter-readme-chart-holds-no-token
func TestTheChartRendersWhatTheOperatorNeeds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
		check  func(t *testing.T, objs map[string]map[string]any)
	}{
		{
			name: "the tokens come from the Secret, never as a value",
			check: func(t *testing.T, objs map[string]map[string]any) {
				e := env(t, objs)
				for _, name := range []string{"DIGITALOCEAN_TOKEN", "CIVO_TOKEN"} {
					ref, ok := e[name].(map[string]any)
					if !ok || ref["secretKeyRef"] == nil {
						t.Errorf("%s is %v, want a secretKeyRef", name, e[name])
					}
				}
				for k := range objs {
					if strings.HasPrefix(k, "Secret/") {
						t.Errorf("the chart renders %s: it must never hold a token", k)
					}
				}
			},
		},
		{
			name:   "API URLs are set only when given",
			values: map[string]any{"apiURLs": map[string]any{"civo": "https://civo.example"}},
			check: func(t *testing.T, objs map[string]map[string]any) {
				e := env(t, objs)
				if e["CIVO_API_URL"] != "https://civo.example" {
					t.Errorf("CIVO_API_URL %v", e["CIVO_API_URL"])
				}
				if _, ok := e["DIGITALOCEAN_API_URL"]; ok {
					t.Error("DIGITALOCEAN_API_URL is set though no URL was given")
				}
			},
		},
		{
			name: "the RBAC reads no Secret and grants no wildcard",
			check: func(t *testing.T, objs map[string]map[string]any) {
				for _, k := range []string{"ClusterRole/karpenter-clusterplane", "Role/karpenter-clusterplane"} {
					role := objs[k]
					if role == nil {
						t.Fatalf("no %s", k)
					}
					for _, r := range role["rules"].([]any) {
						r := r.(map[string]any)
						for _, field := range []string{"resources", "verbs", "apiGroups"} {
							for _, v := range r[field].([]any) {
								if v == "*" || (field == "resources" && v == "secrets") {
									t.Errorf("%s grants %s %v", k, field, v)
								}
							}
						}
					}
				}
			},
		},
		{
			name:   "the operator's settings reach its environment",
			values: map[string]any{"settings": map[string]any{"orphanGrace": "3m"}},
			check: func(t *testing.T, objs map[string]map[string]any) {
				if e := env(t, objs); e["ORPHAN_GRACE"] != "3m" || e["SIZES_MAX_AGE"] != "10m" {
					t.Errorf("env %v", e)
				}
			},
		},
		{
			name:   "Karpenter's feature gates are set only when given, so repair can be switched on",
			values: map[string]any{"settings": map[string]any{"featureGates": "NodeRepair=true"}},
			check: func(t *testing.T, objs map[string]map[string]any) {
				if e := env(t, objs); e["FEATURE_GATES"] != "NodeRepair=true" {
					t.Errorf("FEATURE_GATES %v, want NodeRepair=true", e["FEATURE_GATES"])
				}
				if _, ok := env(t, render(t, nil))["FEATURE_GATES"]; ok {
					t.Error("FEATURE_GATES is set though none was given: Karpenter's defaults would be replaced")
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, render(t, tc.values)) })
	}
}

func TestTheChartShipsTheNodeClassesAndKarpentersCRDs(t *testing.T) {
	ch, err := loader.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range ch.CRDObjects() {
		names = append(names, f.Name)
	}
	for _, want := range []string{"civonodeclasses", "digitaloceannodeclasses", "karpenter.sh_nodepools", "karpenter.sh_nodeclaims"} {
		found := false
		for _, n := range names {
			found = found || strings.Contains(n, want)
		}
		if !found {
			t.Errorf("no CRD %s among %v", want, names)
		}
	}
}

// The chart's clouds table is the provider's: each cloud the operator serves gets its token from
// the Secret, its API URL when one is given, and RBAC on its NodeClasses, and no other cloud is
// in the chart.
func TestTheChartServesTheClustersOfEveryCloudInTheProvidersTable(t *testing.T) {
	urls := map[string]any{}
	for _, d := range clouds.Drivers() {
		urls[d.ID] = "https://" + d.ID + ".example"
	}
	objs := render(t, map[string]any{"apiURLs": urls})
	e := env(t, objs)
	var resources []string
	for _, r := range objs["ClusterRole/karpenter-clusterplane"]["rules"].([]any) {
		for _, res := range r.(map[string]any)["resources"].([]any) {
			resources = append(resources, res.(string))
		}
	}
	values, err := chartutil.ReadValuesFile(filepath.Join("..", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	table, _ := values["clouds"].(map[string]any)
	for _, d := range clouds.Drivers() {
		t.Run(d.ID, func(t *testing.T) {
			if table[d.ID] == nil {
				t.Fatalf("values.yaml's clouds has no %s", d.ID)
			}
			ref, _ := e[d.Env.TokenEnv].(map[string]any)
			if ref == nil || ref["secretKeyRef"] == nil {
				t.Errorf("%s is %v, want a secretKeyRef", d.Env.TokenEnv, e[d.Env.TokenEnv])
			}
			if e[d.Env.URLEnv] != urls[d.ID] {
				t.Errorf("%s is %v, want %v", d.Env.URLEnv, e[d.Env.URLEnv], urls[d.ID])
			}
			for _, want := range []string{d.Resource(), d.Resource() + "/status"} {
				if !slices.Contains(resources, want) {
					t.Errorf("the ClusterRole grants nothing on %s: %v", want, resources)
				}
			}
		})
	}
	if len(table) != len(clouds.Drivers()) {
		t.Errorf("values.yaml's clouds has %d clouds, the provider's table %d", len(table), len(clouds.Drivers()))
	}
}
