package main

import (
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

// render is what `helm template` prints for the chart in dir with the values files over its
// defaults (a later file's keys over an earlier's): every object, as YAML documents in the
// order of their templates' names.
func render(dir, name, namespace string, valueFiles ...string) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", fmt.Errorf("load the chart %s: %w", dir, err)
	}
	values := map[string]any{}
	for _, f := range valueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("read the values %s: %w", f, err)
		}
		var v map[string]any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return "", fmt.Errorf("the values %s: %w", f, err)
		}
		values = merge(values, v)
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: name, Namespace: namespace, IsInstall: true}, nil)
	if err != nil {
		return "", fmt.Errorf("the values of %s: %w", dir, err)
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		return "", fmt.Errorf("render %s: %w", dir, err)
	}
	var out strings.Builder
	for _, file := range slices.Sorted(maps.Keys(files)) {
		if path.Ext(file) != ".yaml" || strings.TrimSpace(files[file]) == "" {
			continue
		}
		for _, doc := range strings.Split(files[file], "\n---") {
			doc = strings.TrimSpace(strings.TrimPrefix(doc, "---"))
			if doc == "" || onlyComments(doc) {
				continue
			}
			fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", file, doc)
		}
	}
	return out.String(), nil
}

// onlyComments tells whether a YAML document holds nothing but comments.
func onlyComments(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// merge is over's keys over base's, maps merged key by key.
func merge(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		if sub, ok := v.(map[string]any); ok {
			if prev, ok := out[k].(map[string]any); ok {
				out[k] = merge(prev, sub)
				continue
			}
		}
		out[k] = v
	}
	return out
}
