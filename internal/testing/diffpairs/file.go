package diffpairs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// row is a pair as a kind's pairs file (iac/pulumi/<kind>/testdata/diff-pairs.yaml) writes it.
type row struct {
	Name string `yaml:"name"`
	// Edit is set in OLD and NEW alike, Change in NEW only (set says how).
	Edit    map[string]any  `yaml:"edit"`
	Change  map[string]any  `yaml:"change"`
	Args    []string        `yaml:"args"`
	Path    string          `yaml:"path"`
	Effect  effects.Effect  `yaml:"effect"`
	Refusal effects.Refusal `yaml:"refusal"`
	// Exit is diff's exit code by its name in exits; none is ok.
	Exit    string `yaml:"exit"`
	Invalid bool   `yaml:"invalid"`
}

// exits are the exit codes a pairs file names, by the names it writes them with.
var exits = map[string]int{"": exitcode.OK, "ok": exitcode.OK, "invalid": exitcode.Invalid, "blocked": exitcode.Blocked}

// Read reads the pairs of a kind's pairs file, and fails the test for a file it cannot read or a
// pair written wrong (see read).
func Read(t testing.TB, file string) []Pair {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading the OLD/NEW pairs: %v", err)
	}
	pairs, err := read(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return pairs
}

// read is the pairs of a pairs file's text: a YAML list of pairs, each with its name, edit (none:
// OLD is the example), change, args, path, effect or invalid, refusal and exit. A key it does not
// know, a pair without a name, change or path, a name two pairs have, or an exit of no name in
// exits is an error: a misspelt key would otherwise drop its check unseen.
func read(data []byte) ([]Pair, error) {
	var rows []row
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rows); err != nil {
		return nil, errors.Wrap(err, "reading the OLD/NEW pairs")
	}
	var pairs []Pair
	seen := map[string]bool{}
	for i, r := range rows {
		where := fmt.Sprintf("pair %d (%q)", i+1, r.Name)
		exit, known := exits[r.Exit]
		switch {
		case r.Name == "" || len(r.Change) == 0 || r.Path == "":
			return nil, errors.Errorf("%s: a pair needs a name, a change and a path", where)
		case seen[r.Name]:
			return nil, errors.Errorf("%s: another pair has the same name", where)
		case r.Invalid == (r.Effect != ""):
			return nil, errors.Errorf("%s: a pair says either the effect of its change or that it is invalid", where)
		case !known:
			return nil, errors.Errorf("%s: exit %q is none of ok, invalid, blocked", where, r.Exit)
		}
		seen[r.Name] = true
		pairs = append(pairs, Pair{Name: r.Name, edit: r.Edit, change: r.Change, Args: r.Args, Path: r.Path,
			Effect: r.Effect, Refusal: r.Refusal, Exit: exit, Invalid: r.Invalid})
	}
	return pairs, nil
}

// set sets each dotted path of paths to its value in stack input m, as a pairs file writes them:
// a manifest's paths ("spec.defaultNodePool.nodeCount", "metadata.name") in the stack input's
// target, and providerConfig's in the stack input itself, as the rows of the effects tables name
// them. A value replaces what was at its path, a map or a list whole; null removes the field. Keys
// and values are the manifest's own (JSON names, enum names). It goes through the stack input's
// JSON: the maps and lists of JSON are what a path walks and a value replaces, whatever Go types
// the kind's messages have, and protojson refuses a field or a value the kind does not have.
func set(m proto.Message, paths map[string]any) error {
	data, err := protojson.Marshal(m)
	if err != nil {
		return errors.Wrap(err, "writing the stack input as JSON")
	}
	doc := map[string]any{}
	if err := json.Unmarshal(data, &doc); err != nil {
		return errors.Wrap(err, "reading the stack input's JSON")
	}
	// Sorted, a parent is set before its fields.
	keys := slices.Sorted(maps.Keys(paths))
	for _, path := range keys {
		within := doc
		if path != "providerConfig" && !strings.HasPrefix(path, "providerConfig.") {
			within = object(doc, "target")
		}
		setPath(within, path, paths[path])
	}
	if data, err = json.Marshal(doc); err != nil {
		return errors.Wrapf(err, "setting %s", strings.Join(keys, ", "))
	}
	if err := protojson.Unmarshal(data, m); err != nil {
		return errors.Wrapf(err, "setting %s", strings.Join(keys, ", "))
	}
	return nil
}

// setPath sets the value at a dotted path below m, making the maps on its way; nil removes it.
func setPath(m map[string]any, path string, value any) {
	key, rest, deeper := strings.Cut(path, ".")
	if deeper {
		setPath(object(m, key), rest, value)
		return
	}
	if value == nil {
		delete(m, key)
		return
	}
	m[key] = value
}

// object is the map at m[key], made when there is none.
func object(m map[string]any, key string) map[string]any {
	inner, ok := m[key].(map[string]any)
	if !ok {
		inner = map[string]any{}
		m[key] = inner
	}
	return inner
}
