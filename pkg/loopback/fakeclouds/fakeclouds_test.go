package fakeclouds_test

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
)

// Every cloud a driver knows has its loopback, and no loopback is of a cloud no driver knows: what
// serves the clouds on loopback serves each cloud, by its ID.
func TestEachDriversCloudHasALoopbackAndNoOther(t *testing.T) {
	var ids []cloud.ID
	for _, l := range fakeclouds.All() {
		ids = append(ids, l.ID)
		if l.Start == nil || l.Seed == nil {
			t.Errorf("the loopback of %s lacks Start or Seed", l.ID)
		}
	}
	if !slices.Equal(ids, clouds.IDs()) {
		t.Errorf("loopbacks %v, want the drivers' clouds %v in their order", ids, clouds.IDs())
	}
}

// A loopback serves its cloud on loopback and keeps its state across a save and a load.
func TestALoopbackServesItsCloudAndKeepsItsState(t *testing.T) {
	for _, l := range fakeclouds.All() {
		t.Run(string(l.ID), func(t *testing.T) {
			c := l.Start(t, "token", 0, 0)
			if c.URL() == "" {
				t.Fatal("no URL")
			}
			data, err := c.Save()
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Start(t, "token", 0, 0).Load(data); err != nil {
				t.Errorf("load what it saved: %v", err)
			}
		})
	}
}
