// Package replace is the one rule of when a run may replace a cluster or a node pool: never
// unasked. A replacement deletes the old resource with its nodes and their pods at once, so
// neither --yes nor a yes at a terminal stands for it: the manifest's rollout block turns a
// pool's replacement into a rotation, or the run names it with --allow-replace. up, a saved
// plan, serve's workers and diff all read Allowed.
package replace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pkg/errors"
)

// Flag is the flag that names the replacements a run may make.
const Flag = "allow-replace"

// All is what --allow-replace without a value stands for: every replacement of the run.
const All = "all"

// Allowed is what a run was told it may replace: everything (--allow-replace), or the manifests
// named KIND/NAME (--allow-replace=KIND/NAME, repeated). The zero value allows nothing.
type Allowed struct {
	all bool
	// named are "kind/name" in lower case: kinds and names are matched in any case, as
	// kinds.List.ByName matches kinds.
	named []string
}

// Everything allows every replacement: the tests that hold the effects table against the real
// providers replace on purpose, and so does diff --allow-replace.
func Everything() Allowed { return Allowed{all: true} }

// Parse reads the values of --allow-replace: All (the flag alone), or KIND/NAME. kindOf gives the
// manifest kind a KIND stands for (a manifest kind, a program name or a short name such as
// do-pool), false when it names none, so that a mistyped kind is an error naming the kinds
// (known), not a flag that allows nothing.
func Parse(values []string, kindOf func(kind string) (string, bool), known string) (Allowed, error) {
	var a Allowed
	for _, v := range values {
		if v == All {
			a.all = true
			continue
		}
		kind, name, ok := strings.Cut(v, "/")
		if !ok || kind == "" || name == "" || strings.Contains(name, "/") {
			return Allowed{}, errors.Errorf("%q: want KIND/NAME (the manifest's kind and metadata.name), "+
				"or --%s alone for every replacement", v, Flag)
		}
		if kindOf != nil {
			manifestKind, ok := kindOf(kind)
			if !ok {
				return Allowed{}, errors.Errorf("%q is not a kind clusterplane deploys (kinds: %s)", kind, known)
			}
			kind = manifestKind
		}
		a.named = append(a.named, strings.ToLower(kind+"/"+name))
	}
	return a, nil
}

// Allows tells whether the run may replace the resources of the manifest of kind (its manifest
// kind, e.g. DigitalOceanKubernetesNodePool, or its program name) and metadata.name.
func (a Allowed) Allows(kinds []string, name string) bool {
	if a.all {
		return true
	}
	for _, k := range kinds {
		if slices.Contains(a.named, strings.ToLower(k+"/"+name)) {
			return true
		}
	}
	return false
}

// UnaskedError is a change that would replace resources of one manifest that the run did not
// name: it is refused (exit 3) before anything changes, and says both ways out.
type UnaskedError struct {
	// Kind and Name are the manifest's kind and metadata.name, as --allow-replace names them.
	Kind, Name string
	// Replaced are the resources the engine would replace, "type name".
	Replaced []string
	// Paths are the manifest fields whose change replaces them, where known.
	Paths []string
}

func (e *UnaskedError) Error() string {
	what := strings.Join(e.Replaced, ", ")
	if len(e.Paths) > 0 {
		what += " (" + strings.Join(e.Paths, ", ") + " changed)"
	}
	return fmt.Sprintf("the change replaces %s: a replacement deletes the old resource with its nodes and their pods "+
		"at once, and --yes does not stand for it. For a node pool, a rollout block (strategy: ROTATE) rotates it "+
		"instead, its pods drained onto the new pool (docs/deploying.md, \"Rotating node pools\"); to replace it "+
		"anyway, run again with --%s=%s/%s", what, Flag, e.Kind, e.Name)
}
