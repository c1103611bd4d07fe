package standin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/pkg/errors"
)

// CloudEnv names the directory that holds the fake cloud. It is required: a stand-in that made up
// a place for its resources would let a test pass without looking at them.
const CloudEnv = "CLUSTERPLANE_STANDIN_CLOUD"

// Resource is one resource in the fake cloud, stored as <dir>/<id>.json in plain JSON. Outputs
// are the cloud's truth (what the API would report); Inputs are what Pulumi last sent. Read
// reports the inputs with the values the cloud holds now, so a test that edits Outputs (an
// autoscaler, a patch upgrade, a console edit) is seen as drift by `pulumi refresh`.
type Resource struct {
	Type    string         `json:"type"`
	Inputs  map[string]any `json:"inputs"`
	Outputs map[string]any `json:"outputs"`
}

// Set sets the output at a dotted path ("nodePool.nodeCount", "version"), creating the objects on
// the way: it changes the cloud behind the engine's back. Write it back with WriteResource.
func (r Resource) Set(path string, value any) {
	setPath(r.Outputs, path, value)
}

// Get returns the output at a dotted path, nil when there is none.
func (r Resource) Get(path string) any {
	v, _ := getPath(r.Outputs, path)
	return v
}

// ReadCloud returns every resource of the fake cloud in dir, by id.
func ReadCloud(dir string) (map[string]Resource, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, errors.Wrap(err, "list the fake cloud")
	}
	out := make(map[string]Resource, len(paths))
	for _, path := range paths {
		id := strings.TrimSuffix(filepath.Base(path), ".json")
		r, err := readResource(dir, id)
		if err != nil {
			return nil, err
		}
		out[id] = r
	}
	return out, nil
}

// WriteResource stores r as the resource id of the fake cloud in dir. The file is replaced
// whole (written aside, then renamed), so a provider reading at the same time never sees half.
func WriteResource(dir, id string, r Resource) error {
	if r.Inputs == nil {
		r.Inputs = map[string]any{}
	}
	if r.Outputs == nil {
		r.Outputs = map[string]any{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return errors.Wrapf(err, "encode %s", id)
	}
	tmp, err := os.CreateTemp(dir, "."+id+"-*")
	if err != nil {
		return errors.Wrap(err, "write the fake cloud")
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return errors.Wrap(err, "write the fake cloud")
	}
	if err := tmp.Close(); err != nil {
		return errors.Wrap(err, "write the fake cloud")
	}
	return errors.Wrap(os.Rename(tmp.Name(), resourcePath(dir, id)), "write the fake cloud")
}

// readResource reads one resource; the error wraps os.ErrNotExist when there is none.
func readResource(dir, id string) (Resource, error) {
	data, err := os.ReadFile(resourcePath(dir, id))
	if err != nil {
		return Resource{}, err
	}
	var r Resource
	if err := json.Unmarshal(data, &r); err != nil {
		return Resource{}, errors.Wrapf(err, "parse the fake cloud's %s", id)
	}
	if r.Inputs == nil {
		r.Inputs = map[string]any{}
	}
	if r.Outputs == nil {
		r.Outputs = map[string]any{}
	}
	return r, nil
}

func resourcePath(dir, id string) string { return filepath.Join(dir, id+".json") }

// setPath sets m's value at a dotted path, creating objects on the way.
func setPath(m map[string]any, path string, value any) {
	parts := strings.Split(path, ".")
	for _, part := range parts[:len(parts)-1] {
		next, ok := m[part].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[part] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = value
}

// deletePath removes m's value at a dotted path.
func deletePath(m map[string]any, path string) {
	parts := strings.Split(path, ".")
	for _, part := range parts[:len(parts)-1] {
		next, ok := m[part].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// getPath returns m's value at a dotted path and whether it is there.
func getPath(m map[string]any, path string) (any, bool) {
	parts := strings.Split(path, ".")
	for _, part := range parts[:len(parts)-1] {
		next, ok := m[part].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	v, ok := m[parts[len(parts)-1]]
	return v, ok
}
