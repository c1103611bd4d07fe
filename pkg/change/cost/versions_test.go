package cost_test

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// The sandbox and the tests deploy into the loopback clouds: a version validate passes offline
// must be one they offer, and one they offer a new cluster must not warn.
func TestThePinnedVersionsAreWhatTheLoopbackCloudsOfferNewClusters(t *testing.T) {
	if got := cost.Versions(cost.DigitalOcean, ""); !slices.Equal(got, fakedo.DefaultVersions) {
		t.Errorf("DigitalOcean's pinned versions %v, the fake offers %v", got, fakedo.DefaultVersions)
	}
	var civo []string
	for _, v := range fakecivo.DefaultVersions {
		if v.Type != "deprecated" {
			civo = append(civo, v.Version)
		}
	}
	if got := cost.Versions(cost.Civo, ""); !slices.Equal(got, civo) {
		t.Errorf("Civo's pinned versions %v, the fake offers %v", got, civo)
	}
	for distribution, want := range map[string]int{"k3s": 4, "talos": 2} {
		if got := cost.Versions(cost.Civo, distribution); len(got) != want || cost.DistributionOf(got[0]) != distribution {
			t.Errorf("Civo's %s versions %v, want %d of them", distribution, got, want)
		}
	}
}
