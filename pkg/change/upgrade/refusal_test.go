package upgrade_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// Promise: upgrade-one-minor-at-a-time
// Promise: pitfalls-one-minor-from-latest-patch
func TestAVersionNotOnePathStepAwayIsRefusedNamingThePathsFirstStep(t *testing.T) {
	do := upgrade.Offer{Versions: doVersions, PatchFirst: true}
	cases := []struct {
		name, running, goal string
		offer               upgrade.Offer
		// first is the step the refusal names; "" with refused set when it names none.
		first   string
		refused bool
		says    string
	}{
		{name: "the next minor from the latest patch is one step", running: "1.31.9-do.2", goal: "1.32.2-do.0", offer: do},
		{name: "a patch of the running minor is one step", running: "1.31.1-do.5", goal: "1.31.9-do.2", offer: do},
		{name: "the next minor from behind the latest patch takes the patch first", running: "1.31.1-do.5", goal: "1.32.2-do.0",
			offer: do, first: "1.31.9-do.2", refused: true, says: "so the way there is 1.31.9-do.2, then 1.32.2-do.0."},
		{name: "two minors from behind the latest patch take the patch first", running: "1.31.1-do.5", goal: "1.33.1-do.0",
			offer: do, first: "1.31.9-do.2", refused: true},
		{name: "two minors from the latest patch take the next minor's latest patch first", running: "1.31.9-do.2", goal: "1.33.1-do.0",
			offer: do, first: "1.32.2-do.0", refused: true},
		{name: "a minor line names the same first step as its latest patch", running: "1.31.1-do.5", goal: "1.33",
			offer: do, first: "1.31.9-do.2", refused: true},
		{name: "a cloud that goes from any patch takes the next minor first", running: "1.31.1-do.5", goal: "1.33.1-do.0",
			offer: upgrade.Offer{Versions: doVersions}, first: "1.32.2-do.0", refused: true, says: "it upgrades one minor version at a time, so"},
		{name: "the patch is named first even when no version of the next minor is offered", running: "1.31.1-do.5", goal: "1.33.1-do.0",
			offer: upgrade.Offer{Versions: []string{"1.31.1-do.5", "1.31.9-do.2", "1.33.1-do.0"}, PatchFirst: true}, first: "1.31.9-do.2", refused: true,
			says: "the cloud offers no 1.32 version to pass through"},
		{name: "two minors with no version to pass through are refused naming no step", running: "1.31.9-do.2", goal: "1.33.1-do.0",
			offer: upgrade.Offer{Versions: []string{"1.31.9-do.2", "1.33.1-do.0"}, PatchFirst: true}, refused: true,
			says: "and the cloud offers no 1.32 version to pass through"},
		{name: "two minors are refused naming no step when the cloud's versions are unknown", running: "1.31.9-do.2", goal: "1.33.1-do.0",
			offer: upgrade.Offer{PatchFirst: true}, refused: true, says: "the versions it offers could not be read"},
		{name: "the next minor is left to the cloud when its versions are unknown", running: "1.31.1-do.5", goal: "1.32.2-do.0",
			offer: upgrade.Offer{PatchFirst: true}},
		{name: "the next minor the cloud does not offer is left to the cloud's own answer", running: "1.31.9-do.2", goal: "1.32.9-do.0", offer: do},
		{name: "a cluster that does not exist yet is created at any version", running: "", goal: "1.33.1-do.0", offer: do},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := upgrade.FirstStep("spec.kubernetesVersion", "DigitalOcean", c.running, c.goal, c.offer)
			if !c.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var refusal *upgrade.FirstStepError
			if !errors.As(err, &refusal) {
				t.Fatalf("FirstStep = %v, want a refusal", err)
			}
			steps, _ := upgrade.Path(c.running, c.goal, c.offer)
			if c.first != "" && (len(refusal.Steps) == 0 || refusal.Steps[0].To != c.first || steps[0].To != c.first) {
				t.Errorf("the refusal's steps %v, Path's %v: want both to start with %s", refusal.Steps, steps, c.first)
			}
			if c.first != "" && !strings.Contains(err.Error(), "Set kubernetesVersion to "+c.first+" and deploy") {
				t.Errorf("%v\ndoes not say to set %s first", err, c.first)
			}
			if c.first == "" && strings.Contains(err.Error(), "Set kubernetesVersion to") {
				t.Errorf("%v\nnames a step, want none", err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("%v\ndoes not say %q", err, c.says)
			}
		})
	}
}

func TestAFirstStepRefusalIsReadBackFromWhereverTheEngineQuotesIt(t *testing.T) {
	err := upgrade.FirstStep("spec.kubernetesVersion", "DigitalOcean", "1.31.1-do.5", "1.33.1-do.0", upgrade.Offer{Versions: doVersions, PatchFirst: true})
	words := strings.TrimPrefix(err.Error(), "spec.kubernetesVersion: ")
	tests := []struct {
		name string
		text string
		ok   bool
	}{
		{"the error itself", err.Error(), true},
		{"quoted in the engine's stderr", fmt.Sprintf("stderr: error: an unhandled error occurred: program failed:\n1 error occurred:\n\t* "+
			"DigitalOceanKubernetesCluster prod-fra1: %v\nerror: preview failed\n", err), true},
		{"another failure", "preview failed: 429 too many requests", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, running, manifest, got, ok := upgrade.ReadFirstStep(tt.text)
			if ok != tt.ok || ok && (field != "spec.kubernetesVersion" || running != "1.31.1-do.5" || manifest != "1.33.1-do.0" || got != words) {
				t.Errorf("read %q %q %q %q %v, want %v and the refusal's field, versions and words", field, running, manifest, got, ok, tt.ok)
			}
		})
	}
}
