package stackstate

import (
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/partgone"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// ModuleRefusal is a manifest change that a kind's module refused while the engine ran its
// program, read back from the engine's words (text): a Kubernetes version older than the one the
// cluster runs (kubeversion.UpgradedPastError), or one the cloud cannot upgrade it to in one step
// (upgrade.FirstStepError), or a part of the cluster gone from the cloud where its provider cannot
// see it (partgone.Error: a DigitalOcean cluster's default pool). The module refuses them because only it reads the live cluster; they
// are refused changes all the same, like those refused before the engine runs, so the operation
// ends blocked (exit 3) and not failed (exit 1), which would read as a broken cloud. nil when
// text quotes no such refusal. A backend calls it on the words of a failed operation: it is the
// one place that reads them, and what it read travels typed (RefusedError.Module).
func ModuleRefusal(text string) *RefusedError {
	if gone := partgone.Read(text); gone != nil {
		return &RefusedError{Changes: []diff.Change{{Path: gone.Field, Effect: effects.Refused,
			Refusal: effects.FailsAtPreview, Reason: gone.Reason()}}, Module: gone}
	}
	if field, running, manifest, words, ok := upgrade.ReadFirstStep(text); ok {
		return refusedVersion(field, running, manifest, words)
	}
	if field, manifest, live, ok := kubeversion.ReadUpgradedPast(text); ok {
		if words, ok := kubeversion.UpgradedPastWords(text); ok {
			refused := refusedVersion(field, live, manifest, words)
			// The words give the field and both versions, not the cloud's name nor the version
			// to set, which the reason already says in the module's words.
			refused.Module = &kubeversion.UpgradedPastError{Field: field, Manifest: manifest, Live: live}
			return refused
		}
	}
	return nil
}

// refusedVersion is the refused change of the version field, from the version the cluster runs
// to the manifest's, the module's words its reason: a change the module fails at preview.
func refusedVersion(field, running, manifest, words string) *RefusedError {
	return &RefusedError{Changes: []diff.Change{{Path: field, Old: running, New: manifest, Effect: effects.Refused,
		Refusal: effects.FailsAtPreview, Reason: words}}}
}
