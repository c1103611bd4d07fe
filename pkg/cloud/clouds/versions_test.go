package clouds_test

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// The sandbox and the tests deploy into the loopback clouds: a version validate passes offline
// must be one they offer, and one they offer a new cluster must not warn.
// Promise: sandbox-catalogues-fixed
func TestThePinnedVersionsAreWhatTheLoopbackCloudsOfferNewClusters(t *testing.T) {
	if got := (digitalocean.Driver{}).Versions(""); !slices.Equal(got, fakedo.DefaultVersions) {
		t.Errorf("DigitalOcean's pinned versions %v, the fake offers %v", got, fakedo.DefaultVersions)
	}
	var offered []string
	for _, v := range fakecivo.DefaultVersions {
		if v.Type != "deprecated" {
			offered = append(offered, v.Version)
		}
	}
	if got := (civo.Driver{}).Versions(""); !slices.Equal(got, offered) {
		t.Errorf("Civo's pinned versions %v, the fake offers %v", got, offered)
	}
	for distribution, want := range map[string]int{"k3s": 4, "talos": 2} {
		if got := (civo.Driver{}).Versions(distribution); len(got) != want || civo.DistributionOf(got[0]) != distribution {
			t.Errorf("Civo's %s versions %v, want %d of them", distribution, got, want)
		}
	}
}
