package upgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/pkg/errors"
)

// LastApplied is the annotation `kubectl apply` (client-side) keeps the applied object in,
// apiVersion included: the version the user's manifests are written against, which the server,
// serving the object at another version, does not otherwise remember. kubent and pluto read it
// too; server-side apply records each manager's version in metadata.managedFields instead.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Object is an object of the cluster written with an API version the upgrade removes.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// RemovedIn is the release that stops serving APIVersion; Use what to write instead.
	RemovedIn string `json:"removedIn"`
	Use       string `json:"use,omitempty"`
	// Source says where the version was read: the last-applied-configuration annotation, or a
	// field manager of metadata.managedFields (named).
	Source string `json:"source"`
}

// Ref names the object as kubectl does: namespace/name, or the name alone for a cluster-wide
// object. The assessment's blockers and every rendering of it name objects this one way.
func (o Object) Ref() string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// FindRemoved finds the cluster's objects whose manifests use an API version of removed: it lists each
// removed kind at the version that replaces it (every server of the upgrade path serves that
// one) and reads the version each object was last applied with. Kinds it could not list are
// returned as notes, not errors: a cluster without the replacement API has no such objects.
func FindRemoved(ctx context.Context, list Lister, removed []Removed) (objects []Object, notes []string, err error) {
	type collection struct{ apiVersion, resource string }
	byCollection := map[collection][]Removed{}
	var order []collection
	for _, r := range removed {
		at := r.Use
		if at == "" {
			at = r.APIVersion() // no successor: only a server that still serves it can say
		}
		k := collection{at, r.Resource}
		if _, ok := byCollection[k]; !ok {
			order = append(order, k)
		}
		byCollection[k] = append(byCollection[k], r)
	}
	for _, k := range order {
		path := "/apis/" + k.apiVersion + "/" + k.resource
		if k.apiVersion == "v1" {
			path = "/api/v1/" + k.resource
		}
		raw, served, err := list(ctx, path)
		if err != nil {
			return nil, nil, errors.Wrapf(err, "list the cluster's %s", k.resource)
		}
		if !served {
			notes = append(notes, fmt.Sprintf("%s %s is not served: not checked", k.apiVersion, k.resource))
			continue
		}
		for _, r := range raw {
			var item map[string]any
			if err := json.Unmarshal(r, &item); err != nil {
				return nil, nil, errors.Wrapf(err, "read %s", path)
			}
			objects = append(objects, uses(item, byCollection[k])...)
		}
	}
	sort.SliceStable(objects, func(i, j int) bool {
		a, b := objects[i], objects[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return objects, notes, nil
}

// uses are the rows of removed that the object item was written with, one Object per source.
func uses(item map[string]any, removed []Removed) []Object {
	meta, _ := item["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	kind, _ := item["kind"].(string)
	match := func(apiVersion, k, source string) []Object {
		for _, r := range removed {
			if r.APIVersion() == apiVersion && r.Kind == k {
				return []Object{{APIVersion: apiVersion, Kind: k, Namespace: ns, Name: name, RemovedIn: r.In, Use: r.Use, Source: source}}
			}
		}
		return nil
	}
	var out []Object
	annotations, _ := meta["annotations"].(map[string]any)
	if text, ok := annotations[LastApplied].(string); ok {
		var applied struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if json.Unmarshal([]byte(text), &applied) == nil {
			out = append(out, match(applied.APIVersion, applied.Kind, "last-applied-configuration")...)
		}
	}
	if kind == "" {
		// A list's items carry no kind; the rows of one collection share one.
		kind = removed[0].Kind
	}
	managed, _ := meta["managedFields"].([]any)
	for _, m := range managed {
		entry, _ := m.(map[string]any)
		v, _ := entry["apiVersion"].(string)
		manager, _ := entry["manager"].(string)
		out = append(out, match(v, kind, "managedFields ("+manager+")")...)
	}
	return out
}
