package deploy

import (
	"slices"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// Scanned is what the fleet scan found of one stack before any stack ran: the stack's records
// read from the backend's storage and its cluster or pool judged against its cloud's list of
// clusters (package scan), with no engine started.
type Scanned struct {
	// Verdict is the scan's: scan.Same when the cloud lists the stack's resource as its state
	// recorded it; scan.Unjudged for a stack the scan cannot judge, whatever the reason.
	Verdict scan.Verdict
	// Why says what made the verdict.
	Why string
	// HoldsNothing: the stack holds nothing, never deployed or destroyed, so there was nothing
	// to judge (Unjudged); what counts such stacks asks this, not Why's words.
	HoldsNothing bool
	// Unchanged: Same, and the manifest and the clusterplane build are the ones the stack's last
	// successful update deployed, so preview and up have nothing to do.
	Unchanged bool
	// Unrecorded are the clusters the scan listed that carry the stack's mark (package
	// stackmark) and that its state does not hold: drift and status --drift name them with the
	// command that adopts them.
	Unrecorded []kinds.Live
	// ElsewhereMarked are, for a stack that holds nothing, the clusters the scan listed that carry
	// the mark of this stack in another backend: up here refuses to create beside them, and drift
	// says so rather than that up deploys the stack.
	ElsewhereMarked []kinds.Live
}

// notDeployed is drift's outcome for t's stack, which holds nothing: up deploys it, unless the
// fleet scan found its cluster carrying this stack's mark in another backend, which up refuses:
// drift then says so, blocked (exit 3, as up's refusal), so that a nightly drift of this backend
// does not pass while its up would fail, and lists the cluster (Unmanaged), as up's refusal does.
func (d *Deployer) notDeployed(t deploytarget.Target) outcome.Outcome {
	o := outcome.NotRun(outcome.HoldsNothing, "")
	refused, live := d.refusedElsewhere(t)
	if refused == "" {
		o.SayReason(outcome.SaysItself, fielddrift.NotDeployed, "")
		return o
	}
	o.Status = outcome.Blocked
	o.SayReason(outcome.SaysItself, refused, "")
	o.Unmanaged = live
	return o
}

// refusedElsewhere says, for t's stack, which holds nothing here, why up here is refused when the
// fleet scan found its cluster carrying this stack's mark in another backend, and lists that
// cluster; "" when it found none.
func (d *Deployer) refusedElsewhere(t deploytarget.Target) (string, []kinds.Live) {
	live := d.Scanned[t.Key()].ElsewhereMarked
	if len(live) == 0 {
		return "", nil
	}
	refused := &createguard.ExistingError{File: t.File, Live: live, NameField: stackinput.CloudName(t.Input), ElsewhereMarked: true}
	return "not deployed in this backend, and up here is refused: " + refused.Error(), live
}

// unrecordedSaid says the clusters carrying t's stack's mark that its state does not hold, with
// the command that takes one over.
func unrecordedSaid(t deploytarget.Target, live []kinds.Live) string {
	return "the cloud holds " + stackstate.DescribeLive(live) + ", carrying this stack's mark, which the stack does not record. " +
		outcome.AdoptAdvice(t.File, live)
}

// withUnrecorded adds to drift's outcome o the clusters the fleet scan found carrying t's stack's
// mark that its state does not hold: drifted, whatever else drift found, for the cloud holds a
// cluster of the stack that no command of the stack manages.
func (d *Deployer) withUnrecorded(t deploytarget.Target, o *outcome.Outcome) {
	live := d.Scanned[t.Key()].Unrecorded
	if len(live) == 0 || o.Status == outcome.Failed || o.Status == outcome.Cancelled {
		return
	}
	o.Unmanaged = append(o.Unmanaged, live...)
	if o.Status == outcome.Drifted {
		o.AddToReason("; ", unrecordedSaid(t, live))
		return
	}
	o.Status, o.NotRun = outcome.Drifted, false
	o.SayReason(outcome.SaysNot, unrecordedSaid(t, live), "")
}

// unrecordedInStatus makes status --drift's Drifted condition say the clusters the fleet scan
// found carrying t's stack's mark that its state does not hold, as drift says them; nothing
// without drift (plain status reads the backend only).
func (d *Deployer) unrecordedInStatus(t deploytarget.Target, drift bool, o *outcome.Outcome) {
	live := d.Scanned[t.Key()].Unrecorded
	if !drift || len(live) == 0 || o.Report == nil {
		return
	}
	for _, l := range live {
		if !slices.ContainsFunc(o.Unmanaged, func(u kinds.Live) bool { return u.ID == l.ID }) {
			o.Unmanaged = append(o.Unmanaged, l)
		}
	}
	drifted := outcome.Condition{Type: "Drifted", Status: "True", Reason: outcome.UnrecordedInCloud, Message: unrecordedSaid(t, live)}
	for i, c := range o.Report.Conditions {
		if c.Type == "Drifted" {
			o.Report.Conditions[i] = drifted
			return
		}
	}
	o.Report.Conditions = append(o.Report.Conditions, drifted)
}
