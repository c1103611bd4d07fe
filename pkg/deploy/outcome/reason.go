package outcome

// Reason is a condition's reason: one word, as Kubernetes conditions say it. Code decides by
// comparing it with the constants below, never by reading its text: the words are for the
// reader and the JSON report, and a new one must not pass a check unseen because of how it is
// spelled.
type Reason string

// The reasons of Ready.
const (
	// Deployed: the last update succeeded and deployed the manifest as it is now.
	Deployed Reason = "Deployed"
	// NotDeployed: the stack does not exist or has no update yet (Drifted says it too: there
	// is nothing to compare).
	NotDeployed Reason = "NotDeployed"
	// Destroyed: the stack's resources were destroyed, on purpose.
	Destroyed Reason = "Destroyed"
	// ManifestChanged: the manifest is not the one the last up deployed, or an adoption left
	// fields for the next up.
	ManifestChanged Reason = "ManifestChanged"
	// ReferenceMissing: a stack the manifest references does not exist.
	ReferenceMissing Reason = "ReferenceMissing"
	// PendingCreates: an interrupted up left creates pending (Drifted says it too).
	PendingCreates Reason = "PendingCreates"
	// RotationUnderWay: a pool rotation stopped midway (Drifted says it too: the preview would
	// find the rotation's unfinished work, not the cloud's change).
	RotationUnderWay Reason = "RotationUnderWay"
	// OrphanPool: a stopped rotation left a billed pool that neither the stack nor a rotation
	// holds.
	OrphanPool Reason = "OrphanPool"
	// LastFailed, LastInProgress and LastNotStarted: the last update did not succeed, by the
	// result Pulumi's history gives it (LastResult). After "Last" the words keep the history's
	// own spelling of the result, "in-progress" and "not-started": scripts read them.
	LastFailed     Reason = "LastFailed"
	LastInProgress Reason = "LastIn-progress"
	LastNotStarted Reason = "LastNot-started"
)

// The reasons of Drifted.
const (
	// NotChecked: status read the backend only and did not compare the cloud (no --drift).
	NotChecked Reason = "NotChecked"
	// InSync: the cloud matches the manifest, or what the last up applied.
	InSync Reason = "InSync"
	// ChangesPending: the cloud differs where an up puts it back.
	ChangesPending Reason = "ChangesPending"
	// NotPutBackByUp: the cloud differs where no up puts it back.
	NotPutBackByUp Reason = "NotPutBackByUp"
	// PreviewFailed: the preview that compares the cloud failed, so the cloud could not be
	// compared.
	PreviewFailed Reason = "PreviewFailed"
	// UnrecordedInCloud: the cloud holds a cluster carrying the stack's mark that the stack does
	// not record (package stackmark).
	UnrecordedInCloud Reason = "UnrecordedInCloud"
)

// NotRead is the reason a status table gives both conditions of a stack status could not read
// (it has no condition of its own).
const NotRead Reason = "NotRead"

// LastResult is Ready's reason for a last update that ended with result, one of the results
// of Pulumi's history other than "succeeded". A result the history does not know reads as
// failed: a stack whose last update did not succeed is never taken for one that did.
func LastResult(result string) Reason {
	switch result {
	case "in-progress":
		return LastInProgress
	case "not-started":
		return LastNotStarted
	}
	return LastFailed
}

// LastNotSucceeded tells whether the reason says the stack's last update did not succeed
// (failed, interrupted, or still running when it was read).
func (r Reason) LastNotSucceeded() bool {
	return r == LastFailed || r == LastInProgress || r == LastNotStarted
}

// reportedOnly are the reasons of a Ready=False that status reports and does not fail on: a
// reference gone or a stack destroyed on purpose is nothing a script must stop at.
var reportedOnly = map[Reason]bool{Destroyed: true, ReferenceMissing: true}
