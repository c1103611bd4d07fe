package outcome

// Verdict is what an operation decided of a stack where no engine step shows it: the stack left
// alone, or found holding nothing. Reports pick their word from it (render.ResultOf), never from
// Reason, which says the same for people in words that may change. The zero Verdict is none: the
// status and what the engine found say what happened.
type Verdict string

// The verdicts.
const (
	// Unchanged: the fleet scan found the stack as its last up left it (manifest, clusterplane
	// build and cloud), and the operation left it alone (NotRun).
	Unchanged Verdict = "unchanged"
	// HoldsNothing: the stack holds nothing, never deployed or destroyed: drift has nothing to
	// compare with the cloud, destroy nothing to delete.
	HoldsNothing Verdict = "holds nothing"
	// NotPreviewed: the preview did not run because a stack the manifest reads is not deployed
	// yet (a new cluster's pool, in the run that creates the cluster).
	NotPreviewed Verdict = "not previewed"
	// LeftOut: left alone on purpose, with nothing saying it is unchanged (--changed-since left
	// it out; serve's fleet scan did not vouch for it).
	LeftOut Verdict = "left out"
)
