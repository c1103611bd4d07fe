package deploy

import (
	"context"
	"io"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// driftFound is what a preview of a stack as its last up deployed it found, as drift and status
// --drift both say it: the preview's result, why it is drift ("" when the cloud changed
// nothing), the cloud's changes and the manifest's pending ones.
type driftFound struct {
	res              stackstate.Result
	reason           string
	drifted, pending []outcome.FieldDrift
}

// findDrift previews the stack s, opened by openAsDeployed with asDeployed as its program's
// target, as its last up deployed it (deploytarget.AsDeployed), so that whatever the preview
// finds is the cloud's change, and sorts it from the manifest's own since (since). When the cloud
// upgraded the cluster past the version that up applied, which the module refuses to deploy, that
// is drift of the version, and the preview is made again with the version the cluster runs, to
// find the rest. op names the command in what a dropped read says. A failed preview is err:
// where its failure is itself drift (fielddrift.PreviewFailed) the caller says so. Without
// refresh the preview compares the stack's state as it stands, which the caller knows to be the
// cloud as an up just read it (upRead): no cloud is read.
func (d *Deployer) findDrift(ctx context.Context, t deploytarget.Target, s stackstate.Stack, asDeployed *deploytarget.Target,
	outputs map[string]stackstate.Output, since fielddrift.Since, op string, progress io.Writer, refresh bool) (driftFound, error) {
	var f driftFound
	// As deployed, with the mark the state records, whichever (none, for a stack deployed before
	// clusterplane marked what it creates): the mark the next up writes is no change of the cloud's.
	var recorded stackmark.Mark
	if st, err := s.State(ctx); err == nil {
		recorded, _ = st.Mark()
	}
	*asDeployed = deploytarget.AsDeployed(t, outputs).WithMark(recorded)
	preview := func() (err error) {
		f.res, err = s.Preview(ctx, stackstate.Options{Progress: progress, Refresh: refresh})
		return err
	}
	err := d.retrier().run(ctx, t, preview, nil)
	var past []outcome.FieldDrift
	if field, recorded, live, ok := fielddrift.UpgradedPastOf(err); ok {
		// No up takes the cluster back down a version: the manifest catches up, or nothing does.
		past = []outcome.FieldDrift{{Field: field, Live: live, Manifest: recorded,
			Stays: "the cloud cannot take a cluster down a version: set " + field + " to the version the cluster runs"}}
		*asDeployed = asDeployed.WithInput(fielddrift.WithValues(asDeployed.Input, past))
		err = d.retrier().run(ctx, t, preview, nil)
	}
	if err == nil && refresh {
		err = newReading(readrepair.CloudLists).previewReads(ctx, t, s, op, f.res)
	}
	if err != nil {
		return f, err
	}
	f.reason, f.drifted, f.pending = fielddrift.Found(t, *asDeployed, since, f.res, d.stacks().leftByAdoption(ctx, t, s))
	if len(past) > 0 {
		f.drifted, f.pending = fielddrift.UpgradedPast(past[0], f.drifted, f.pending)
		if len(f.drifted) > 0 && f.drifted[0].Field == past[0].Field {
			said := "the cloud upgraded the cluster past the version the last up applied"
			if f.reason != "" {
				said += "; " + f.reason
			}
			f.reason = said
		}
	}
	return f, nil
}
