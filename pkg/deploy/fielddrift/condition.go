package fielddrift

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// Condition is status's Drifted condition for what drift found: reason "" when the cloud changed
// nothing, drifted the cloud's changes, pendingSaid the manifest's own changes said
// (PendingSaid), "" when there are none.
func Condition(reason string, drifted []outcome.FieldDrift, pendingSaid string) outcome.Condition {
	switch {
	case reason != "":
		message := reason
		if len(drifted) > 0 {
			message += " (" + describeAll(drifted) + ")"
		}
		// ChangesPending reads as what an up clears: a drift no up can put back is named apart.
		if _, all := Unclearable(drifted); all {
			return outcome.Condition{Type: "Drifted", Status: "True", Reason: outcome.NotPutBackByUp, Message: message}
		}
		return outcome.Condition{Type: "Drifted", Status: "True", Reason: outcome.ChangesPending, Message: message}
	case pendingSaid != "":
		// The manifest's own change is no drift: Ready's ManifestChanged says the stack is behind.
		return outcome.Condition{Type: "Drifted", Status: "False", Reason: outcome.InSync,
			Message: "the cloud matches what the stack's last update applied; " + pendingSaid}
	}
	return outcome.Condition{Type: "Drifted", Status: "False", Reason: outcome.InSync, Message: "the cloud matches the manifest"}
}

// FailedCondition is status's Drifted condition for a preview that failed with err, and the
// drift it names: the module refusing a version the cloud upgraded the cluster past, or the
// engine refusing to replace a protected cluster, is the cloud's change no up puts back, as drift
// says (PreviewFailed); any other failure cannot tell.
func FailedCondition(err error) (outcome.Condition, []outcome.FieldDrift) {
	if o, ok := PreviewFailed(err); ok && o.Status == outcome.Drifted {
		message := o.Reason
		if len(o.Drift) > 0 {
			message += " (" + describeAll(o.Drift) + ")"
		}
		return outcome.Condition{Type: "Drifted", Status: "True", Reason: outcome.NotPutBackByUp, Message: message}, o.Drift
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.PreviewFailed, Message: "the cloud could not be compared: " + first}, nil
}

// describeAll says each drifted field and both values, as drift's report lists them.
func describeAll(fields []outcome.FieldDrift) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		parts = append(parts, DescribeDrift(f))
	}
	return strings.Join(parts, "; ")
}
