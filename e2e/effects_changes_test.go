package e2e_test

// What the effects walk (effects_test.go) changes. This file carries no build tag: reading and
// checking every kind's claims needs no engine, so a plain `go test ./e2e/` fails at once for a kind
// of the list whose claims are missing or broken, before any walk deploys anything.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	kindspkg "github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"
)

// del removes a field in an edit.
var del = struct{ name string }{"delete"}

// edit sets the manifest field at a dotted path ("spec.defaultNodePool.nodeCount") to value, or
// removes it (del).
type edit struct {
	path  string
	value any
}

// change is one change of the walk: a row, the edits that make the old and the new manifest from
// the kind's base, and the claim the test expects diff to make (checked first: the walk holds the
// claim, whatever it is, against the provider). Values may hold placeholders ("{vpc}"), which the
// walk fills in for each change (walkVars).
type change struct {
	kind, row, name string
	// base is the spec every change of the kind starts from, from the kind's walk file.
	base     map[string]any
	old, new []edit
}

// walkIDs are the ids of what the walk seeds into each change's clouds (newClouds), by the
// placeholder that stands for them in the kinds' walk files: "{vpc}". The clusters' are those the
// examples' pools join (cloud_test.go), written out here because that file needs the e2e tag.
var walkIDs = map[string]string{
	"doCluster":    "b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d",
	"doCluster2":   "4d8e2f6a-0b1c-4d3e-9f5a-7b9c1d3e5f7a",
	"civoCluster":  "0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e",
	"civoCluster2": "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910",
	"civoNetwork":  "8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b",
	"civoNetwork2": "3c1e0f62-9d4b-4a7e-b8c5-2f6a1d9e0b73",
	"civoFirewall": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
	"vpc":          "0c9e8d7f-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
	"vpc2":         "1d0f9e8a-2b3c-4d4e-9f0a-1b2c3d4e5f60",
}

// The placeholders that are not seeds: the base manifest's own name, and the change's own
// cloud's URL ("{url}/" is the same API at another spelling).
const (
	namePlaceholder = "name"
	urlPlaceholder  = "url"
	url             = "{" + urlPlaceholder + "}"
)

const (
	walkDOToken2   = "dop_v1_" + "e2e0sentinel0second0token0digitalocean0never0in0state0or0logs00"
	walkCivoToken2 = "e2eSENTINEL43civo77second"
)

// walkVars are the placeholders' values for one change: the seeds, the base's name and its
// cloud's URL.
func walkVars(name, apiURL string) map[string]string {
	vars := map[string]string{namePlaceholder: name, urlPlaceholder: apiURL}
	for k, v := range walkIDs {
		vars[k] = v
	}
	return vars
}

// placeholder is "{word}" in a string value of a walk file.
var placeholder = regexp.MustCompile(`\{([A-Za-z][A-Za-z0-9]*)\}`)

// expand is v with the placeholders in its strings replaced by their values in vars.
func expand(v any, vars map[string]string) any {
	switch x := v.(type) {
	case string:
		return placeholder.ReplaceAllStringFunc(x, func(p string) string {
			if value, ok := vars[p[1:len(p)-1]]; ok {
				return value
			}
			return p
		})
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = expand(e, vars)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expand(e, vars)
		}
		return out
	}
	return v
}

// expandEdits is edits with their values' placeholders filled in.
func expandEdits(edits []edit, vars map[string]string) []edit {
	out := make([]edit, len(edits))
	for i, e := range edits {
		out[i] = edit{e.path, e.value}
		if e.value != del {
			out[i].value = expand(e.value, vars)
		}
	}
	return out
}

// walkFileName is the file in a kind's testdata that holds its claims for the walk.
const walkFileName = "effects-walk.yaml"

// walkFile is where kind k keeps its claims for the walk, from the repository's root: beside its
// invalid.yaml, in the folder its project names.
func walkFile(k kindspkg.Kind) string {
	return filepath.Join("iac", "pulumi", k.Project, "testdata", walkFileName)
}

// walkData is a kind's walk file as written.
type walkData struct {
	// Base is the spec of the manifest every change of the kind starts from.
	Base map[string]any `yaml:"base"`
	// Changes are the kind's own: old and new set dotted paths of the base manifest (null
	// removes one); what a change does not name keeps the base's value.
	Changes []struct {
		Row  string         `yaml:"row"`
		Name string         `yaml:"name"`
		Old  map[string]any `yaml:"old"`
		New  map[string]any `yaml:"new"`
	} `yaml:"changes"`
}

// loadWalk reads the claims of kind k for the walk from its walk file and checks them: a base, at
// least one change of its spec, every change naming a row of its effects table once by name, and
// no placeholder the walk does not fill in. Its errors name the file.
func loadWalk(k kindspkg.Kind) ([]change, error) {
	file := walkFile(k)
	data, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		return nil, errors.Wrapf(err, "%s, a kind of iac/pulumi/registry, has no claims for the effects walk: write %s "+
			"(see another kind's)", k.Name, file)
	}
	return parseWalk(k, file, data)
}

// parseWalk reads and checks the claims of kind k in data, the text of file.
func parseWalk(k kindspkg.Kind, file string, data []byte) ([]change, error) {
	var w walkData
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		return nil, errors.Wrapf(err, "reading %s", file)
	}
	known := walkVars("", "")
	if len(w.Base) == 0 {
		return nil, errors.Errorf("%s has no base: the spec of the manifest every change of %s starts from", file, k.Name)
	}
	if err := checkPlaceholders(w.Base, known); err != nil {
		return nil, errors.Wrapf(err, "%s: base", file)
	}
	rows := map[string]bool{}
	for _, row := range k.Effects.Rows {
		rows[row.Path] = true
	}
	var out []change
	seen := map[string]bool{}
	own := 0
	for i, c := range w.Changes {
		where := fmt.Sprintf("%s: change %d (%s %s)", file, i+1, c.Row, c.Name)
		switch {
		case c.Row == "" || c.Name == "":
			return nil, errors.Errorf("%s: a change needs a row and a name", where)
		case !rows[c.Row]:
			return nil, errors.Errorf("%s: %s is no row of %s's effects table", where, c.Row, k.Name)
		case seen[c.Row+"\x00"+c.Name]:
			return nil, errors.Errorf("%s: another change of %s has the same name", where, c.Row)
		}
		seen[c.Row+"\x00"+c.Name] = true
		if strings.HasPrefix(c.Row, "spec.") {
			own++
		}
		for _, m := range []map[string]any{c.Old, c.New} {
			if err := checkPlaceholders(m, known); err != nil {
				return nil, errors.Wrap(err, where)
			}
		}
		out = append(out, change{kind: k.Name, row: c.Row, name: c.Name, base: w.Base, old: editsOf(c.Old), new: editsOf(c.New)})
	}
	if own == 0 {
		return nil, errors.Errorf("%s has no change of %s's spec: add one for each row of its effects table", file, k.Name)
	}
	return out, nil
}

// editsOf are the edits a change's old or new map makes, parents before their fields (sorted
// paths), a null value removing the field.
func editsOf(m map[string]any) []edit {
	var out []edit
	for path, value := range m {
		if value == nil {
			value = del
		}
		out = append(out, edit{path, value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// checkPlaceholders fails on a placeholder in v that known has no value for, and on one written
// without quotes, which YAML reads as a map ({vpc} is {"vpc": null}).
func checkPlaceholders(v any, known map[string]string) error {
	switch x := v.(type) {
	case string:
		for _, m := range placeholder.FindAllStringSubmatch(x, -1) {
			if _, ok := known[m[1]]; !ok {
				names := make([]string, 0, len(known))
				for name := range known {
					names = append(names, "{"+name+"}")
				}
				sort.Strings(names)
				return errors.Errorf("unknown placeholder %s (the walk fills in %s)", m[0], strings.Join(names, ", "))
			}
		}
	case map[string]any:
		for k, e := range x {
			if _, ok := known[k]; ok && e == nil && len(x) == 1 {
				return errors.Errorf("{%s} needs quotes: \"{%s}\"", k, k)
			}
			if err := checkPlaceholders(e, known); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkPlaceholders(e, known); err != nil {
				return err
			}
		}
	}
	return nil
}

// effectChanges are the changes of the effects walk: at least one for every row of every kind,
// one more for each different effect a row's condition (When) or removal can give. A kind's own
// are claims, not derivable from its table: they live in its walk file. The rows every kind has
// and the provider settings are made here, from the walk's tokens and URL.
func effectChanges() ([]change, error) {
	set := func(path string, value any) []edit { return []edit{{path, value}} }
	none := []edit(nil)
	var out []change
	for _, k := range registry.Kinds() {
		own, err := loadWalk(k)
		if err != nil {
			return nil, err
		}
		base := own[0].base
		add := func(row, name string, old, new []edit) {
			out = append(out, change{kind: k.Name, row: row, name: name, base: base, old: old, new: new})
		}
		// The rows every kind has.
		add("metadata.annotations", "added", none, set("metadata.annotations", map[string]any{"owner": "platform"}))
		add("metadata.env", "set", none, set("metadata.env", "dev"))
		add("metadata.id", "set", none, set("metadata.id", "k8s-0001"))
		add("metadata.org", "set", none, set("metadata.org", "acme"))
		add("metadata.labels", "added", none, set("metadata.labels", map[string]any{"team": "platform"}))
		add("metadata.name", "renamed", none, set("metadata.name", "renamed"))
		// Provider settings: a second key of the same account, the same API at another spelling.
		switch cloudOf(k) {
		case "digitalocean":
			add("providerConfig.apiToken", "another key", none, set("providerConfig.apiToken", walkDOToken2))
			add("providerConfig.apiUrl", "another spelling", none, set("providerConfig.apiUrl", url+"/"))
		case "civo":
			add("providerConfig.apiToken", "another key", none, set("providerConfig.apiToken", walkCivoToken2))
			add("providerConfig.apiUrl", "another spelling", none, set("providerConfig.apiUrl", url+"/"))
			add("providerConfig.defaultRegion", "set", none, set("providerConfig.defaultRegion", "lon1"))
		}
		out = append(out, own...)
	}
	return out, nil
}

// cloudOf is the cloud of a kind's API: apis/clusterplane/provider/<cloud>/<kind>/v1, whose proto
// package is clusterplane.provider.<cloud>.<kind>.v1.
func cloudOf(k kindspkg.Kind) string {
	return strings.Split(string(k.StackInput().FullName()), ".")[2]
}

// Every kind of the list brings its claims for the walk, in its own folder, and they cover every
// row of its effects table: a kind without them fails here, in a plain test, naming the file to
// write, before the walk deploys anything.
func TestEveryKindOfTheListHasChangesForTheEffectsWalk(t *testing.T) {
	for _, k := range registry.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			if cloud := cloudOf(k); cloud != "digitalocean" && cloud != "civo" {
				t.Errorf("%s is of cloud %q, which the effects walk has no loopback cloud and provider settings for", k.Name, cloud)
			}
			if _, err := loadWalk(k); err != nil {
				t.Fatal(err)
			}
		})
	}
	if t.Failed() {
		return
	}
	changes, err := effectChanges()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range changes {
		covered[c.kind+" "+c.row] = true
	}
	for _, k := range registry.Kinds() {
		var missing []string
		for _, row := range k.Effects.Rows {
			if !covered[k.Name+" "+row.Path] {
				missing = append(missing, row.Path)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: rows of its effects table no change of the walk exercises: %s; add changes of them to %s",
				k.Name, strings.Join(missing, ", "), walkFile(k))
		}
	}
}

// A walk file's mistakes fail with the file and what is wrong in it, not somewhere in the walk.
func TestAWalkFilesMistakesAreNamedWithTheFile(t *testing.T) {
	fake := kindspkg.Kind{Name: "FakeKubernetesThing", Project: "fakekubernetesthing",
		Effects: &effects.Table{Rows: []effects.Row{{Path: "metadata.name"}, {Path: "spec.size"}, {Path: "spec.cluster"}}}}
	const file = "iac/pulumi/fakekubernetesthing/testdata/effects-walk.yaml"
	if _, err := loadWalk(fake); err == nil || !strings.Contains(err.Error(), "write "+file) {
		t.Errorf("a kind without a walk file: %v, want it to name the file to write", err)
	}
	const base = "base: {nodePoolName: \"{name}\", cluster: {value: \"{doCluster}\"}}\n"
	tests := []struct {
		name, text, want string
	}{
		{"a good file", base + "changes:\n  - {row: spec.size, name: resized, new: {spec.size: big}}\n" +
			"  - {row: spec.cluster, name: moved, new: {spec.cluster: {value: \"{doCluster2}\"}}}\n", ""},
		{"a misspelt seed", base + "changes:\n  - {row: spec.cluster, name: moved, new: {spec.cluster: {value: \"{doClutser2}\"}}}\n",
			"change 1 (spec.cluster moved): unknown placeholder {doClutser2}"},
		{"a misspelt seed in the base", "base: {cluster: {value: \"{doClutser}\"}}\nchanges:\n  - {row: spec.size, name: resized}\n",
			"base: unknown placeholder {doClutser}"},
		{"a placeholder without quotes", base + "changes:\n  - {row: spec.cluster, name: moved, new: {spec.cluster: {value: {doCluster2}}}}\n",
			`{doCluster2} needs quotes`},
		{"no base", "changes:\n  - {row: spec.size, name: resized}\n", "has no base"},
		{"a row the table has not", base + "changes:\n  - {row: spec.sise, name: resized}\n", "spec.sise is no row"},
		{"two changes of one name", base + "changes:\n  - {row: spec.size, name: resized}\n  - {row: spec.size, name: resized}\n",
			"same name"},
		{"a change without a name", base + "changes:\n  - {row: spec.size}\n", "needs a row and a name"},
		{"a misspelt key", base + "changes:\n  - {row: spec.size, name: resized, nwe: {spec.size: big}}\n", "nwe"},
		{"no change of the spec", base + "changes:\n  - {row: metadata.name, name: renamed}\n", "no change of FakeKubernetesThing's spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseWalk(fake, file, []byte(tt.text))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error naming %s and %q", err, file, tt.want)
			}
		})
	}
	// What the checks accept, expand fills in.
	got := expand(map[string]any{"cluster": []any{"{name}-x", "{doCluster}", url + "/"}}, walkVars("pool-1", "http://127.0.0.1:1"))
	want := map[string]any{"cluster": []any{"pool-1-x", walkIDs["doCluster"], "http://127.0.0.1:1/"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("expand: got %v, want %v", got, want)
	}
}
