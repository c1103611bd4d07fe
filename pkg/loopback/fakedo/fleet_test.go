package fakedo_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestAFleetsCopiesAreLoadedAfterTheCloudsOwnAndNewDropletsComeAfterTheirs(t *testing.T) {
	do := fakedo.New(t, "tok")
	id, _, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: "tok"},
		seed.Cluster{Name: "base", Region: "fra1", Pools: []seed.Pool{{Count: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := do.Save()
	if err != nil {
		t.Fatal(err)
	}
	base, err := fakedo.FleetCluster(saved, id)
	if err != nil {
		t.Fatal(err)
	}
	if base.Name != "base" || len(base.IDs) != 4 || len(base.Numbers) != 2 || base.Address == "" {
		t.Fatalf("the cluster reads as %+v; want its name, its own, its pool's and two nodes' ids, two droplets and an address", base)
	}
	// A copy as fleetgen makes one: every id and droplet its own.
	text := string(base.JSON)
	for k, old := range base.IDs {
		text = strings.ReplaceAll(text, old, "copy-id-"+strconv.Itoa(k))
	}
	for k, old := range base.Numbers {
		text = strings.ReplaceAll(text, strconv.Quote(old), strconv.Quote(strconv.Itoa(900000000+k)))
	}
	fleet, err := fakedo.AddFleet(saved, id, []json.RawMessage{json.RawMessage(text)})
	if err != nil {
		t.Fatal(err)
	}
	loaded := fakedo.New(t, "tok")
	if err := loaded.Load(fleet); err != nil {
		t.Fatal(err)
	}
	if _, ok := loaded.Cluster(id); !ok {
		t.Errorf("the base cluster %s is gone", id)
	}
	if c, ok := loaded.Cluster("copy-id-0"); !ok || c.NodePools[0].Nodes[1].DropletID != "900000001" {
		t.Fatalf("the copy loads as %+v, %v", c, ok)
	}
	var s struct {
		Order       []string `json:"order"`
		NextDroplet int      `json:"nextDroplet"`
	}
	if err := json.Unmarshal(fleet, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Order) != 2 || s.Order[1] != "copy-id-0" || s.NextDroplet < 900000001 {
		t.Errorf("order %v, next droplet %d; want the copy after the base and droplets after 900000001", s.Order, s.NextDroplet)
	}
}

func TestAClusterTheStateFileLacksIsSaidByItsID(t *testing.T) {
	saved, err := fakedo.New(t, "tok").Save()
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"read": func() error { _, err := fakedo.FleetCluster(saved, "missing-id"); return err }(),
		"add":  func() error { _, err := fakedo.AddFleet(saved, "missing-id", nil); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "missing-id") {
			t.Errorf("%s: got %v, want the cluster's id named", name, err)
		}
	}
}
