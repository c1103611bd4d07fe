package kubeversion

import (
	"fmt"
	"regexp"
)

// UpgradedPastError: a cluster runs a newer version than the manifest names, which a deployment
// would take back down (a replacement, for DigitalOcean's provider). The cloud may have upgraded
// it (an auto-upgrade, a forced end-of-life upgrade), or it was made at that version and is being
// adopted: the error says neither, since the module cannot tell them apart. A module refuses to
// deploy it; the CLI reads the refusal back from the engine's words (ReadUpgradedPast, called
// where the backend reads them and nowhere else), and drift takes it as the drift of Field it is.
type UpgradedPastError struct {
	// Field is the manifest's path, Manifest its version, Live the one the cluster runs.
	Field, Manifest, Live string
	// Cloud names the cloud, which cannot take a cluster down a version; Want the least version
	// to set the field to.
	Cloud, Want string
}

func (e *UpgradedPastError) Error() string {
	return fmt.Sprintf("%s: %s is older than the version the cluster runs, %s, and %s cannot take a cluster down a "+
		"version: deploying it would replace the cluster. Set kubernetesVersion to %s or a later version",
		e.Field, e.Manifest, e.Live, e.Cloud, e.Want)
}

// upgradedPast matches an UpgradedPastError's text wherever the engine quotes it.
var upgradedPast = regexp.MustCompile(`(spec\.[A-Za-z.]+): (\S+) is older than the version the cluster runs, (\S+), and ` +
	`[A-Za-z]+ cannot take a cluster down a version`)

// ReadUpgradedPast finds an UpgradedPastError in text (what the engine said of a failed preview):
// its field, the manifest's version and the one the cluster runs; ok false when there is none.
func ReadUpgradedPast(text string) (field, manifest, live string, ok bool) {
	m := upgradedPast.FindStringSubmatch(text)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// upgradedPastWords match an UpgradedPastError's text from its field to the version it says to
// set, which is the live version or, with autoUpgrade, "1.32 (or 1.32.2-do.1)".
var upgradedPastWords = regexp.MustCompile(`spec\.[A-Za-z.]+: (\S+ is older than the version the cluster runs, \S+, and [A-Za-z]+ ` +
	`cannot take a cluster down a version: deploying it would replace the cluster\. Set kubernetesVersion to \S+(?: \(or \S+\))? ` +
	`or a later version)`)

// UpgradedPastWords are the words of an UpgradedPastError found in text, after its field, so that
// a refusal read back from the engine says what the module said; ok false when there is none.
func UpgradedPastWords(text string) (words string, ok bool) {
	m := upgradedPastWords.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}
