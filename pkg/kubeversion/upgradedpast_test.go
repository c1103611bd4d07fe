package kubeversion

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestAnUpgradedPastRefusalIsReadBackFromWhereverTheEngineQuotesIt(t *testing.T) {
	err := &UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31", Live: "1.32.2-do.0", Cloud: "DigitalOcean",
		Want: "1.32 (or 1.32.2-do.0)"}
	tests := []struct {
		name string
		text string
		ok   bool
	}{
		{"the error itself", err.Error(), true},
		{"quoted in the engine's diagnostics", fmt.Sprintf("preview failed: an unhandled error occurred: 1 error occurred:\n\t* %v\n", err), true},
		{"another failure", errors.New("preview failed: 429 too many requests").Error(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, manifest, live, ok := ReadUpgradedPast(tt.text)
			if ok != tt.ok || ok && (field != err.Field || manifest != err.Manifest || live != err.Live) {
				t.Errorf("read %q %q %q %v, want %v and the error's field and versions", field, manifest, live, ok, tt.ok)
			}
		})
	}
}

func TestAnUpgradedPastRefusalsWordsAreReadBackWholeToTheVersionToSet(t *testing.T) {
	for _, want := range []string{"1.32.2-do.0", "1.32 (or 1.32.2-do.0)"} {
		err := &UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31", Live: "1.32.2-do.0", Cloud: "DigitalOcean", Want: want}
		t.Run("set "+want, func(t *testing.T) {
			text := fmt.Sprintf("preview failed: an unhandled error occurred: 1 error occurred:\n\t* %v\nerror: preview failed\n", err)
			words, ok := UpgradedPastWords(text)
			if wantWords := err.Error()[len("spec.kubernetesVersion: "):]; !ok || words != wantWords {
				t.Errorf("words %q %v, want %q", words, ok, wantWords)
			}
		})
	}
	if _, ok := UpgradedPastWords("preview failed: 429 too many requests"); ok {
		t.Error("words read from another failure")
	}
}

// The module cannot tell a cluster the cloud upgraded from one made at a newer version (adopted
// with an older manifest): the refusal says what is so, the cluster runs a newer version, and
// that any version from it on will do, never that the cloud upgraded it.
func TestAnUpgradedPastRefusalSaysTheClusterRunsANewerVersionNotWhoUpgradedIt(t *testing.T) {
	err := &UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31.1-do.5", Live: "1.33.1-do.0", Cloud: "DigitalOcean",
		Want: "1.33.1-do.0"}
	words := err.Error()
	for _, want := range []string{"is older than the version the cluster runs, 1.33.1-do.0",
		"DigitalOcean cannot take a cluster down a version", "Set kubernetesVersion to 1.33.1-do.0 or a later version"} {
		if !strings.Contains(words, want) {
			t.Errorf("the refusal %q does not say %q", words, want)
		}
	}
	if strings.Contains(words, "upgraded") {
		t.Errorf("the refusal %q says the cluster was upgraded, which the module cannot know", words)
	}
}
