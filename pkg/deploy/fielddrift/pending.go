package fielddrift

import (
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Since is the manifest's change since the stack's last up: the diff of the manifest the stack
// recorded with the file's, worked out once for all that drift and status say of it. Diff is
// nil when the stack recorded no manifest (or it cannot be read).
type Since struct{ Diff *diff.Result }

// SinceOf is the change from the manifest the stack whose outputs are given recorded to t's.
func SinceOf(t deploytarget.Target, outputs map[string]stackstate.Output) Since {
	result, err := t.SinceDeployed(outputs)
	if err != nil {
		return Since{}
	}
	return Since{Diff: result}
}

// Paths names the fields the manifest changed, "spec.tags, spec.nodeCount": "" when none did
// or the stack recorded no manifest.
func (s Since) Paths() string {
	if s.Diff == nil {
		return ""
	}
	paths := make([]string, 0, len(s.Diff.Changes))
	for _, c := range s.Diff.Changes {
		paths = append(paths, c.Path)
	}
	return strings.Join(paths, ", ")
}

// Sent are the changes the next up sends: a change the modules leave to the cloud or to nobody
// (effects.Ignored: annotations, a rollout block, a node count under autoscaling) changes
// nothing there and is no pending change.
func (s Since) Sent() []diff.Change {
	if s.Diff == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(s.Diff.Changes), func(c diff.Change) bool { return c.Effect == effects.Ignored })
}

// Found is what drift and status --drift found, given res, a preview against the cloud of the
// stack as its last up deployed it (asDeployed: deploytarget.AsDeployed): every change that
// preview finds is the cloud's, so the manifest's own edits since that up (since) are never
// drift, whatever they would do (update, rotate, replace). reason is "" when the cloud changed
// nothing; drifted are the cloud's changes, pending the manifest's, the next up's to apply, and
// what an adoption left for it (left, read lazily). A field the cloud changed to the manifest's
// new value (an up whose write landed but whose answer was lost) is no drift, and pending: the
// next up sends nothing for it, but records it.
func Found(t, asDeployed deploytarget.Target, since Since, res stackstate.Result, left func() []string) (reason string, drifted, pending []outcome.FieldDrift) {
	reason, drifted, adopted := DriftOf(asDeployed, res, left)
	changes := since.Sent()
	changed := map[string]diff.Change{}
	for _, c := range changes {
		changed[c.Path] = c
	}
	for _, f := range adopted {
		if !Among(f.Field, changed) {
			pending = append(pending, f)
		}
	}
	cloud := map[string]any{}
	var caughtUp, kept []outcome.FieldDrift
	for _, d := range drifted {
		c, ok := changeOf(d.Field, changed)
		switch {
		case ok && c.Path == d.Field && SameValue(d.Live, c.New):
			// The cloud was changed to what the manifest now says: no drift, and pending with
			// the cloud's value beside it (DescribePending says the cloud has it already).
			caughtUp = append(caughtUp, d)
			cloud[c.Path] = d.Live
		case ok:
			d.Recorded, d.Manifest = d.Manifest, c.New
			cloud[c.Path] = d.Live
			kept = append(kept, d)
		default:
			kept = append(kept, d)
		}
	}
	drifted = kept
	if len(drifted) == 0 && len(caughtUp) > 0 && explained(asDeployed.Effects, res.Steps, append(caughtUp, adopted...)) {
		reason = ""
	}
	for _, c := range changes {
		if _, still := changed[c.Path]; !still {
			continue
		}
		live, ok := cloud[c.Path]
		if !ok {
			live = c.Old
		}
		pending = append(pending, withoutOwnTags(t, outcome.FieldDrift{Field: c.Path, Live: live, Manifest: c.New, Recorded: c.Old}, false))
	}
	return reason, drifted, pending
}

// PendingSaid says the pending fields, and what up does with them where the engine alone would
// replace: the rotation up carries out where the manifest asks for one (its rollout block), else
// that up refuses the replacement unless the run allows it.
func PendingSaid(t deploytarget.Target, since Since, pending []outcome.FieldDrift) string {
	reason := DescribePending(pending)
	if since.Diff == nil {
		return reason
	}
	if carried, _ := rotationrun.CarriedOut(t, since.Diff.Rotations); len(carried) > 0 {
		return reason + " (up would rotate " + rotationrun.DescribeRotations(carried) + ", where the engine alone would replace it)"
	}
	if since.Diff.Replaces {
		reason += " (it replaces what it changes: up refuses it unless the run allows the replacement, preview says what)"
	}
	return reason
}

// ManifestPending are the manifest's changes since the stack's last up, as pending fields: what
// drift says when its preview of the cloud failed, for the manifest's edits are known without
// it; what the cloud has is then not known.
func ManifestPending(t deploytarget.Target, since Since) []outcome.FieldDrift {
	var out []outcome.FieldDrift
	for _, c := range since.Sent() {
		out = append(out, withoutOwnTags(t, outcome.FieldDrift{Field: c.Path, Manifest: c.New, Recorded: c.Old}, false))
	}
	return out
}

// UpgradedPast adds to what drift found the version the cloud upgraded the cluster past (past:
// the version the cluster runs against the one the last up applied). It is drift unless the
// manifest now says the version the cluster runs, and pending as the manifest's change where the
// manifest changed it.
func UpgradedPast(past outcome.FieldDrift, drifted, pending []outcome.FieldDrift) (_, _ []outcome.FieldDrift) {
	recorded := past.Manifest
	for i, p := range pending {
		if p.Field == past.Field {
			pending[i].Live = past.Live
			if SameValue(p.Manifest, past.Live) {
				return drifted, slices.Delete(pending, i, i+1)
			}
			past.Manifest, past.Recorded = p.Manifest, recorded
		}
	}
	return append([]outcome.FieldDrift{past}, drifted...), pending
}
