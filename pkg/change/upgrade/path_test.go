package upgrade_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// The loopback clouds' catalogues (pkg/loopback/fakedo, pkg/loopback/fakecivo), as the clouds list them.
var (
	doVersions   = []string{"1.33.1-do.0", "1.32.2-do.0", "1.31.9-do.2", "1.31.9-do.0", "1.31.1-do.5", "1.30.10-do.0"}
	civoVersions = []string{"1.28.7-k3s1", "1.29.8-k3s1", "1.30.5-k3s1", "1.31.1-k3s1"}
)

func tos(steps []upgrade.Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.From+">"+s.To)
	}
	return out
}

// Promise: upgrade-one-minor-at-a-time
func TestThePathGoesOneMinorAtATimeToTheLatestPatchOfEach(t *testing.T) {
	cases := []struct {
		name, running, goal string
		offer               upgrade.Offer
		steps               []string
		blocker             string
	}{
		{name: "DigitalOcean two minors up", running: "1.30.10-do.0", goal: "1.32.2-do.0",
			offer: upgrade.Offer{Next: []string{"1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2"}, Versions: doVersions, PatchFirst: true},
			steps: []string{"1.30.10-do.0>1.31.9-do.2", "1.31.9-do.2>1.32.2-do.0"}},
		{name: "DigitalOcean the latest patch of the running minor first, a minor line to its latest patch", running: "1.31.1-do.5", goal: "1.33",
			offer: upgrade.Offer{Next: []string{"1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0"}, Versions: doVersions, PatchFirst: true},
			steps: []string{"1.31.1-do.5>1.31.9-do.2", "1.31.9-do.2>1.32.2-do.0", "1.32.2-do.0>1.33.1-do.0"}},
		{name: "a cloud that goes to the next minor from any patch", running: "1.31.1-do.5", goal: "1.33",
			offer: upgrade.Offer{Versions: doVersions},
			steps: []string{"1.31.1-do.5>1.32.2-do.0", "1.32.2-do.0>1.33.1-do.0"}},
		{name: "the latest patch whatever order the cloud lists them in", running: "1.30.10-do.0", goal: "1.32.2-do.0",
			offer: upgrade.Offer{Versions: []string{"1.30.10-do.0", "1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2", "1.31.10-do.0", "1.32.2-do.0"}},
			steps: []string{"1.30.10-do.0>1.31.10-do.0", "1.31.10-do.0>1.32.2-do.0"}},
		{name: "DigitalOcean a patch in the same minor", running: "1.31.1-do.5", goal: "1.31.9-do.2",
			offer: upgrade.Offer{Next: []string{"1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0"}, Versions: doVersions},
			steps: []string{"1.31.1-do.5>1.31.9-do.2"}},
		{name: "up to date", running: "1.32.2-do.0", goal: "1.32.2-do.0",
			offer: upgrade.Offer{Next: []string{"1.33.1-do.0"}, Versions: doVersions}},
		{name: "a version the cloud does not offer", running: "1.30.10-do.0", goal: "1.32.9-do.0",
			offer: upgrade.Offer{Next: []string{"1.31.9-do.2"}, Versions: doVersions}, blocker: "does not offer 1.32.9-do.0"},
		{name: "a downgrade", running: "1.32.2-do.0", goal: "1.31.9-do.2",
			offer: upgrade.Offer{Versions: doVersions}, blocker: "never downgraded"},
		{name: "a first step DigitalOcean does not allow now", running: "1.30.10-do.0", goal: "1.31.9-do.2",
			offer: upgrade.Offer{Next: []string{}, Versions: doVersions},
			steps: []string{"1.30.10-do.0>1.31.9-do.2"}, blocker: "does not offer an upgrade from 1.30.10-do.0 to 1.31.9-do.2 now"},
		{name: "a minor with no version to pass through", running: "1.29.1-do.0", goal: "1.31.9-do.2",
			offer: upgrade.Offer{Versions: []string{"1.31.9-do.2"}}, blocker: "offers no 1.30 version"},
		{name: "Civo three minors up", running: "1.28.7-k3s1", goal: "1.31.1-k3s1",
			offer: upgrade.Offer{Versions: civoVersions},
			steps: []string{"1.28.7-k3s1>1.29.8-k3s1", "1.29.8-k3s1>1.30.5-k3s1", "1.30.5-k3s1>1.31.1-k3s1"}},
		{name: "Civo a version it does not offer", running: "1.30.5-k3s1", goal: "1.32.0-k3s1",
			offer: upgrade.Offer{Versions: civoVersions}, blocker: "does not offer 1.32.0-k3s1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, blockers := upgrade.Path(c.running, c.goal, c.offer)
			if got := tos(steps); !reflect.DeepEqual(got, c.steps) {
				t.Errorf("steps %v, want %v", got, c.steps)
			}
			joined := strings.Join(blockers, "; ")
			if c.blocker == "" && joined != "" || !strings.Contains(joined, c.blocker) {
				t.Errorf("blockers %q, want one containing %q", joined, c.blocker)
			}
		})
	}
}

func TestEachMinorStepNamesTheAPIsItsReleaseRemoves(t *testing.T) {
	steps, _ := upgrade.Path("1.24.9-do.0", "1.26.1-do.0", upgrade.Offer{Versions: []string{"1.24.9-do.0", "1.25.4-do.0", "1.26.1-do.0"}})
	if len(steps) != 2 {
		t.Fatalf("steps %v", tos(steps))
	}
	has := func(s upgrade.Step, apiVersion, kind string) bool {
		for _, r := range s.Removes {
			if r.APIVersion() == apiVersion && r.Kind == kind {
				return true
			}
		}
		return false
	}
	if !has(steps[0], "batch/v1beta1", "CronJob") || has(steps[0], "autoscaling/v2beta2", "HorizontalPodAutoscaler") {
		t.Errorf("the step to 1.25 removes %+v", steps[0].Removes)
	}
	if !has(steps[1], "autoscaling/v2beta2", "HorizontalPodAutoscaler") || has(steps[1], "batch/v1beta1", "CronJob") {
		t.Errorf("the step to 1.26 removes %+v", steps[1].Removes)
	}
}

func TestRemovedBetweenTakesTheReleasesAboveTheRunningOneUpToTheTarget(t *testing.T) {
	cases := []struct {
		from, to string
		want     []string
	}{
		{"1.31.9-do.2", "1.32.2-do.0", []string{"1.32", "1.32"}},
		{"1.32.2-do.0", "1.33.1-do.0", nil},
		{"1.28.7-k3s1", "1.29.8-k3s1", []string{"1.29", "1.29"}},
		{"1.25.0", "1.26.0", []string{"1.26", "1.26", "1.26"}},
	}
	for _, c := range cases {
		var got []string
		for _, r := range upgrade.RemovedBetween(upgrade.RemovedAPIs, c.from, c.to) {
			got = append(got, r.In)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("RemovedBetween(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
