// Package reference says what a StringValueOrRef field's valueFrom points at: the stack that
// deploys another manifest, by the convention, and the output it reads; and it checks manifests
// that reference each other together (region.go). Resolving a reference inside a program is
// pkg/pulumi/stackref's.
package reference

import (
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
)

const outputsPrefix = "status.outputs."

// Key is the referenced stack within its organization: `<kind in lower case>/<name>[-<env>]`,
// the project and the stack.
func Key(ref *sharedv1.ValueFromRef) string {
	return strings.ToLower(ref.GetKind()) + "/" + Stack(ref.GetName(), ref.GetEnv())
}

// Stack is the stack name of a manifest by the convention: <name>-<env>, or <name> without env.
func Stack(name, env string) string {
	if env == "" {
		return name
	}
	return name + "-" + env
}

// OutputName is the stack output a reference reads: field_path `status.outputs.<name>` reads
// `<name>`; an empty field_path reads defaultOutput.
func OutputName(ref *sharedv1.ValueFromRef, defaultOutput string) string {
	if path := ref.GetFieldPath(); path != "" {
		return strings.TrimPrefix(path, outputsPrefix)
	}
	return defaultOutput
}
