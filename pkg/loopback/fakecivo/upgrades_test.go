package fakecivo_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/civo/civogo"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

// civoUpgrade asks for cluster id at version, as the provider's update does.
func civoUpgrade(t *testing.T, c *civogo.Client, id, version string) {
	t.Helper()
	if _, err := c.UpdateKubernetesCluster(id, &civogo.KubernetesClusterConfig{KubernetesVersion: version}); err != nil {
		t.Fatalf("upgrade %s to %s: %v", id, version, err)
	}
}

// read is a GET of the cluster, as the provider's wait makes it: a poll.
func read(t *testing.T, c *civogo.Client, id string) *civogo.KubernetesCluster {
	t.Helper()
	cl, err := c.GetKubernetesCluster(id)
	if err != nil {
		t.Fatalf("GetKubernetesCluster(%s): %v", id, err)
	}
	return cl
}

func TestAnUpgradeCivoFailsIsBackAtTheOldVersionInErrorUntilTheClusterIsFixed(t *testing.T) {
	for _, polls := range []int{0, 2} {
		t.Run(map[int]string{0: "failed at once", 2: "failed after two UPGRADING reads"}[polls], func(t *testing.T) {
			f := fakecivo.New(t, token, "")
			c := client(t, f, "lon1")
			web := f.SeedCluster(civogo.KubernetesCluster{Name: "web", Version: "1.29.8-k3s1"})
			api := f.SeedCluster(civogo.KubernetesCluster{Name: "api", Version: "1.29.8-k3s1"})
			f.BuildPolls = polls
			f.FailUpgrades("web", true)
			civoUpgrade(t, c, web, "1.30.5-k3s1")
			civoUpgrade(t, c, api, "1.30.5-k3s1")
			for i := range polls {
				if cl := read(t, c, web); cl.Status != "UPGRADING" || cl.Version != "1.30.5-k3s1" {
					t.Errorf("read %d: %s at %s, want UPGRADING at 1.30.5-k3s1 like any upgrade", i+1, cl.Status, cl.Version)
				}
			}
			if cl := read(t, c, web); cl.Status != "ERROR" || cl.Version != "1.29.8-k3s1" || cl.KubernetesVersion != "1.29.8-k3s1" || !cl.Ready {
				t.Errorf("after the upgrade: %s at %s (kubernetes_version %s, ready %v), want ERROR at 1.29.8-k3s1, still ready",
					cl.Status, cl.Version, cl.KubernetesVersion, cl.Ready)
			}
			for range polls {
				read(t, c, api)
			}
			if cl := read(t, c, api); cl.Status != "ACTIVE" || cl.Version != "1.30.5-k3s1" {
				t.Errorf("another cluster's upgrade: %s at %s, want ACTIVE at 1.30.5-k3s1", cl.Status, cl.Version)
			}
			f.FailUpgrades("web", false)
			if cl := read(t, c, web); cl.Status != "ACTIVE" || cl.Version != "1.29.8-k3s1" {
				t.Errorf("the fixed cluster is %s at %s, want ACTIVE at its old version", cl.Status, cl.Version)
			}
			civoUpgrade(t, c, web, "1.30.5-k3s1")
			for range polls {
				read(t, c, web)
			}
			if cl := read(t, c, web); cl.Status != "ACTIVE" || cl.Version != "1.30.5-k3s1" {
				t.Errorf("the fixed cluster's next upgrade left it %s at %s, want ACTIVE at 1.30.5-k3s1", cl.Status, cl.Version)
			}
		})
	}
}

func TestAFailedCivoUpgradeStaysFailedAcrossASaveAndLoad(t *testing.T) {
	cases := []struct {
		name  string
		polls int // reads before the save
	}{
		{"saved once it failed", 2},
		{"saved while it still upgraded", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fakecivo.New(t, token, "")
			c := client(t, f, "lon1")
			id := f.SeedCluster(civogo.KubernetesCluster{Name: "web", Version: "1.29.8-k3s1"})
			f.BuildPolls = 2
			f.FailUpgrades("web", true)
			civoUpgrade(t, c, id, "1.30.5-k3s1")
			for range tc.polls {
				read(t, c, id)
			}
			saved, err := f.Save()
			if err != nil {
				t.Fatal(err)
			}
			again := fakecivo.New(t, token, "")
			if err := again.Load(saved); err != nil {
				t.Fatal(err)
			}
			if cl := read(t, client(t, again, "lon1"), id); cl.Status != "ERROR" || cl.Version != "1.29.8-k3s1" {
				t.Errorf("loaded: %s at %s, want ERROR at 1.29.8-k3s1", cl.Status, cl.Version)
			}
		})
	}
}

func TestCivoRecordsTheUpgradesItAcceptedInOrder(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	web := f.SeedCluster(civogo.KubernetesCluster{Name: "web", Version: "1.29.8-k3s1"})
	api := f.SeedCluster(civogo.KubernetesCluster{Name: "api", Version: "1.30.5-k3s1"})
	before := time.Now().UTC().Add(-time.Second)
	civoUpgrade(t, c, web, "1.30.5-k3s1")
	if _, err := c.UpdateKubernetesCluster(api, &civogo.KubernetesClusterConfig{KubernetesVersion: "1.28.7-k3s1"}); !errors.Is(err, civogo.DatabaseKubernetesClusterInvalidVersionError) {
		t.Fatalf("a downgrade gave %v, want it refused", err)
	}
	if _, err := c.UpdateKubernetesCluster(api, &civogo.KubernetesClusterConfig{Tags: "team:web"}); err != nil {
		t.Fatal(err)
	}
	civoUpgrade(t, c, api, "1.31.1-k3s1")
	civoUpgrade(t, c, web, "1.31.1-k3s1")
	want := []fakecivo.UpgradeRecord{
		{ClusterID: web, ClusterName: "web", From: "1.29.8-k3s1", To: "1.30.5-k3s1"},
		{ClusterID: api, ClusterName: "api", From: "1.30.5-k3s1", To: "1.31.1-k3s1"},
		{ClusterID: web, ClusterName: "web", From: "1.30.5-k3s1", To: "1.31.1-k3s1"},
	}
	got := f.Upgrades()
	after := time.Now().UTC().Add(time.Second)
	for i := range got {
		if got[i].At.Before(before) || got[i].At.After(after) {
			t.Errorf("upgrade %d recorded at %s, want the time it was accepted", i+1, got[i].At)
		}
		got[i].At = time.Time{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("upgrades recorded:\n%+v\nwant the accepted ones, neither the refused one nor the tags:\n%+v", got, want)
	}
}
