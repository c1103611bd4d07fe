package deploy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
)

// PreviewPlan previews the target against the cloud as it is now (read in memory first, as drift
// does) and says, in Outcome.Planned, what the stack's part of a saved plan is. The last update is
// read before the preview: one landing during it makes the plan stale, never silently current.
func (d *Deployer) PreviewPlan(ctx context.Context, t deploytarget.Target) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	last, err := d.stacks().lastUpdate(ctx, t)
	if err != nil {
		return failed(err)
	}
	o := newPreviewing(d).preview(ctx, t, true)
	if o.Result == nil || o.Status == outcome.Failed || o.Status == outcome.Cancelled {
		return o
	}
	o.Planned = &outcome.PlannedStack{Stack: t.Key(), File: t.File, Kind: t.Name, Digest: savedplan.ManifestDigest(t.Input),
		LastUpdate: savedplan.PlannedUpdate(last), Summary: o.Result.Summary(), Steps: savedplan.PlannedSteps(*o.Result),
		RecordedOnly: savedplan.ChangePaths(o.Result.RecordedOnly), Fields: savedplan.FieldDigests(t.Input)}
	return o
}

// CheckPlan tells whether the stack's part of a plan still holds for t: its manifest is the one
// reviewed, no update landed on the stack since, and a fresh preview against the cloud as it is
// now would do exactly the planned steps, none of them a replacement allow does not name. A
// *PlanMovedError names what moved, a *replace.UnaskedError what would be replaced unasked; other
// errors are failures to tell. It changes nothing: a stack it had to create for the preview goes
// again.
func (d *Deployer) CheckPlan(ctx context.Context, t deploytarget.Target, p outcome.PlannedStack, allow replace.Allowed) error {
	var moved []string
	if digest := savedplan.ManifestDigest(t.Input); digest != p.Digest {
		if edited := savedplan.EditedFields(p.Fields, savedplan.FieldDigests(t.Input)); p.Fields != nil && len(edited) > 0 {
			moved = append(moved, fmt.Sprintf("%s is not the manifest reviewed: %s edited since", t.File, strings.Join(edited, ", ")))
		} else {
			moved = append(moved, fmt.Sprintf("%s is not the manifest reviewed (digest %s, the plan's %s)", t.File, savedplan.Short(digest), savedplan.Short(p.Digest)))
		}
	}
	last, err := d.stacks().lastUpdate(ctx, t)
	if err != nil {
		return err
	}
	if now := savedplan.PlannedUpdate(last); !savedplan.SameUpdate(now, p.LastUpdate) {
		moved = append(moved, fmt.Sprintf("another update landed on the stack since the plan: its last is %s, the plan saw %s "+
			"(an up --plan of this very plan counts: a plan is applied once; preview --save-plan again)", now, p.LastUpdate))
	}
	if len(moved) > 0 {
		// What a fresh preview would do differs for these reasons already: it is not run.
		return &savedplan.PlanMovedError{Stack: t.Key(), Moved: moved}
	}
	o := newPreviewing(d).preview(ctx, t, true)
	if o.Result == nil {
		if o.Err != nil {
			return o.Err
		}
		return errors.Errorf("preview %s: %s", t.Key(), o.Reason)
	}
	if diff := savedplan.StepsDiffer(p.Steps, savedplan.PlannedSteps(*o.Result)); len(diff) > 0 {
		return &savedplan.PlanMovedError{Stack: t.Key(), Moved: diff}
	}
	// A reviewed plan is no more a yes to a replacement than --yes is: the run names it.
	if !allow.Allows([]string{t.Name, t.Project}, t.MetadataName()) {
		if stop := refusedReplacement(t, *o.Result, nil); stop != nil {
			return stop.Err
		}
	}
	if now := savedplan.ChangePaths(o.Result.RecordedOnly); !slices.Equal(now, p.RecordedOnly) {
		return &savedplan.PlanMovedError{Stack: t.Key(), Moved: []string{fmt.Sprintf("the changes recorded only are %s, the plan's %s",
			savedplan.PathsOrNone(now), savedplan.PathsOrNone(p.RecordedOnly))}}
	}
	return nil
}
