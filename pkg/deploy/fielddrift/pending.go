package fielddrift

import (
	"slices"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Found is what drift and status --drift found, given res, a preview against the cloud of the
// stack as its last up deployed it (deploytarget.AsDeployed, whose outputs are given): every
// change that preview finds is the cloud's, so the manifest's own edits since that up (the diff of
// the two manifests) are never drift, whatever they would do (update, rotate, replace). reason is
// "" when the cloud changed nothing; drifted are the cloud's changes, pending the manifest's,
// the next up's to apply, and what an adoption left for it (left, read lazily). A field the cloud
// changed to the manifest's new value is neither: up has nothing to apply.
func Found(t deploytarget.Target, outputs map[string]stackstate.Output, res stackstate.Result, left func() []string) (reason string, drifted, pending []outcome.FieldDrift) {
	asDeployed := deploytarget.AsDeployed(t, outputs)
	reason, drifted, adopted := DriftOf(asDeployed, res, left)
	changes := sinceDeployed(t, outputs)
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
			// The cloud was changed to what the manifest now says: neither drift nor pending.
			caughtUp = append(caughtUp, d)
			delete(changed, c.Path)
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

// sinceDeployed are the manifest's changes since the stack's last up that the next up sends: a
// change the modules leave to the cloud or to nobody (effects.Ignored: annotations, a rollout
// block, a node count under autoscaling) changes nothing there and is no pending change.
func sinceDeployed(t deploytarget.Target, outputs map[string]stackstate.Output) []diff.Change {
	result, err := deploytarget.SinceDeployed(t.Effects, t.Input, outputs)
	if err != nil || result == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(result.Changes), func(c diff.Change) bool { return c.Effect == effects.Ignored })
}

// PendingSaid says the pending fields, and the rotation up carries out for them where the
// manifest asks for one (its rollout block), which the engine alone would replace.
func PendingSaid(t deploytarget.Target, outputs map[string]stackstate.Output, pending []outcome.FieldDrift) string {
	reason := DescribePending(pending)
	rotations, err := rotationrun.Rotations(t.Effects, t.Input, outputs)
	if err != nil {
		return reason
	}
	if carried, _ := rotationrun.CarriedOut(t, rotations); len(carried) > 0 {
		return reason + " (up would rotate " + rotationrun.DescribeRotations(carried) + ", where the engine alone would replace it)"
	}
	if result, err := deploytarget.SinceDeployed(t.Effects, t.Input, outputs); err == nil && result != nil && result.Replaces {
		reason += " (it replaces what it changes: up refuses it unless the run allows the replacement, preview says what)"
	}
	return reason
}

// ManifestPending are the manifest's changes since the stack's last up, as pending fields: what
// drift says when its preview of the cloud failed, for the manifest's edits are known without it.
func ManifestPending(t deploytarget.Target, outputs map[string]stackstate.Output) []outcome.FieldDrift {
	var out []outcome.FieldDrift
	for _, c := range sinceDeployed(t, outputs) {
		out = append(out, withoutOwnTags(t, outcome.FieldDrift{Field: c.Path, Live: c.Old, Manifest: c.New, Recorded: c.Old}, false))
	}
	return out
}

// UpgradedPast adds to what drift found the version the cloud upgraded the cluster past (past:
// the version the cluster runs against the one the last up applied). It is drift unless the
// manifest now says the version the cluster runs, and pending as the manifest's change where the
// manifest changed it.
func UpgradedPast(t deploytarget.Target, outputs map[string]stackstate.Output, past outcome.FieldDrift, drifted, pending []outcome.FieldDrift) (_, _ []outcome.FieldDrift) {
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
