// Package charttest renders the Helm chart with Helm's own engine (helm.sh/helm/v3, a test-only
// dependency) and checks what it would install.
package charttest

import (
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

// render is the chart's objects with values over its defaults, by kind/name.
func render(t *testing.T, values map[string]any) map[string]map[string]any {
	t.Helper()
	ch, err := loader.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "karp", Namespace: "karpenter"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, vals)
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
