package deploy

import "github.com/clusterplane/clusterplane/pkg/cloud/scan"

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
}
