package fielddrift

import (
	_ "embed"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
)

// ChangedPaths are the manifest's fields that changed since the manifest the stack recorded
// before the operation, with both values; nil when it recorded none (or the manifest did not
// change: the cloud did).
func ChangedPaths(t deploytarget.Target, previous map[string]any) map[string]diff.Change {
	if t.Input == nil {
		return nil
	}
	result, err := t.SinceDeployed(stackstate.OutputsOf(previous))
	if err != nil || result == nil || len(result.Changes) == 0 {
		return nil
	}
	paths := map[string]diff.Change{}
	for _, c := range result.Changes {
		paths[c.Path] = c
	}
	return paths
}

// Among tells whether field is one of the changed paths, or holds one, or is held by one.
func Among(field string, changed map[string]diff.Change) bool {
	for p := range changed {
		if p == field || strings.HasPrefix(p, field+".") || strings.HasPrefix(field, p+".") {
			return true
		}
	}
	return false
}
