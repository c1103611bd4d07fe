package fielddrift

import (
	"errors"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/partgone"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// UpgradedPastOf reads, from a preview's error, the module's refusal of a version the cloud
// upgraded the cluster past: the field, the version refused and the one the cluster runs. The
// backend read the refusal from the engine's words (stackstate.ModuleRefusal); this reads the
// typed error it made of them.
func UpgradedPastOf(err error) (field, manifest, live string, ok bool) {
	var past *kubeversion.UpgradedPastError
	if !errors.As(err, &past) {
		return "", "", "", false
	}
	return past.Field, past.Manifest, past.Live, true
}

// PreviewFailed is drift's outcome of a preview that failed with err: Drifted when the module
// refused a version the cloud upgraded the cluster past (kubeversion.UpgradedPastError), which
// is the cloud's change behind the manifest, not a failure of drift, a cluster whose part is gone
// from the cloud where its provider cannot see it (partgone.Error), or the engine refused
// to replace a protected cluster; ok false for any other failure, the caller's to say.
func PreviewFailed(err error) (_ outcome.Outcome, ok bool) {
	var gone *partgone.Error
	if errors.As(err, &gone) {
		return outcome.Outcome{Status: outcome.Drifted, Reason: gone.Cloud + " lists no " + gone.Part + " of cluster " + gone.Cluster +
			" tagged " + gone.Mark + ", and up refuses to deploy one the provider cannot see", Drift: []outcome.FieldDrift{{
			Field: gone.Field, Live: "none tagged " + gone.Mark, Manifest: "the " + gone.Part + " the stack recorded", Stays: gone.Reason()}}}, true
	}
	field, manifest, live, ok := UpgradedPastOf(err)
	var protected *stackstate.ProtectedError
	if !ok && errors.As(err, &protected) {
		return protectedDrift(protected), true
	}
	if !ok {
		return outcome.Outcome{}, false
	}
	return outcome.Outcome{Status: outcome.Drifted, Reason: "the cloud upgraded the cluster past " + field + " (" + live + "), and up refuses " +
		manifest + ": set it to the version the cluster runs", Drift: []outcome.FieldDrift{{Field: field, Live: live, Manifest: manifest}}}, true
}

// protectedDrift is drift's outcome of a preview the engine refused because it would replace or
// delete a protected resource. The manifest's own replacing changes are refused before the engine
// runs, so what asks for the replacement is the cloud or the stack's state (another stack's state
// imported, the cluster made again elsewhere): drift, and not a reason to turn protection off,
// which would let up replace a cluster that may not be this manifest's.
func protectedDrift(e *stackstate.ProtectedError) outcome.Outcome {
	what := "a protected cluster"
	if len(e.Resources) > 0 {
		what = strings.Join(e.Resources, ", ")
	}
	return outcome.Outcome{Status: outcome.Drifted, Reason: "up would replace or delete " + what + ", which is protected " +
		"(deletionProtection): the cloud or the stack's state no longer matches what this manifest deployed; " +
		"find out why (clusterplane preview shows the engine's plan) before deploying deletionProtection: false, " +
		"which would let up replace it"}
}
