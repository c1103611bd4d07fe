package runreport

import (
	"sort"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// The engine counts a resource "same" when a change of the manifest reaches no cloud resource:
// deletion protection is Pulumi's protect flag, recorded in the stack's state, and some fields
// (annotations) are sent nowhere. An up that went by the engine's count alone would deploy such a
// change unlisted and unasked: turning protection off would pass as "4 same", and the next destroy
// would delete the cluster. RecordedOnly finds them so that they are counted, listed and asked
// about like the engine's steps.

// RecordedOnly are the changes of t's manifest since the manifest the stack recorded (in res's
// previous outputs) that no step of res carries, by path; nil when the stack recorded none.
func RecordedOnly(t deploytarget.Target, res stackstate.Result) []diff.Change {
	changed := fielddrift.ChangedPaths(t, res.Previous)
	if len(changed) == 0 {
		return nil
	}
	carried := map[string]diff.Change{}
	whole := false
	for _, rc := range resourceChanges(t.Effects, res.Steps, changed) {
		// A step that creates, deletes or replaces a whole resource may name no property: it
		// carries every change that reaches the cloud.
		whole = whole || len(rc.Properties) == 0
		for _, f := range rc.Fields {
			if f.Changed {
				carried[f.Path] = diff.Change{}
			}
		}
	}
	var out []diff.Change
	for path, c := range changed {
		if fielddrift.Among(path, carried) {
			continue
		}
		if whole && c.Effect != effects.Ignored && path != effects.ProtectionPath {
			continue
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// ProtectionOff tells whether changes turn a cluster's deletion protection off (an unset
// deletionProtection protects): the next destroy, or a replacement, then deletes the cluster.
func ProtectionOff(changes []diff.Change) bool {
	for _, c := range changes {
		if c.Path == effects.ProtectionPath && (c.Old == nil || c.Old == true) && c.New == false {
			return true
		}
	}
	return false
}

// ProtectionOffLine is what a report says of deletion protection turned off, on a line of its own.
const ProtectionOffLine = "deletion protection on → off: destroy will delete this cluster"
