package upgrade_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

func TestAFleetGoesInAWaveForEachGroupOfEnvironmentsWithItsCanaryFirst(t *testing.T) {
	plans := []upgrade.Assessment{
		{Name: "p1", Env: "prod"}, {Name: "s1", Env: "staging"}, {Name: "d1", Env: "dev"}, {Name: "d2", Env: "dev"},
		{Name: "d3", Env: "sandbox"}, {Name: "x1", Env: "edge"}, {Name: "q1", Env: "qa"},
	}
	cases := []struct {
		canary int
		want   string
	}{
		{0, "development:d1,d2,d3 test:q1 staging:s1 other:x1 production:p1"},
		{1, "canary:d1 development:d2,d3 test:q1 staging:s1 other:x1 production:p1"},
		{3, "canary:d1,d2,d3 test:q1 staging:s1 other:x1 production:p1"},
		{9, "canary:d1,d2,d3 test:q1 staging:s1 other:x1 production:p1"},
	}
	for _, tc := range cases {
		var got []string
		for _, w := range upgrade.Waves(plans, tc.canary) {
			var names []string
			for _, p := range w.Plans {
				names = append(names, p.Name)
			}
			got = append(got, w.Name+":"+strings.Join(names, ","))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("--canary %d: %s\nwant %s", tc.canary, strings.Join(got, " "), tc.want)
		}
	}
}

// node is a node of a cluster's API as JSON: Ready or not, its kubelet at version ("" says none).
func node(ready bool, kubelet string) json.RawMessage {
	status := "False"
	if ready {
		status = "True"
	}
	return json.RawMessage(fmt.Sprintf(`{"status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":%q}],"nodeInfo":{"kubeletVersion":%q}}}`, status, kubelet))
}

func TestANodeIsReadyWhenItsReadyConditionIsTrueAtTheStepsMinor(t *testing.T) {
	cases := []struct {
		name        string
		nodes       []json.RawMessage
		ready, from int
	}{
		{"every node ready at the minor", []json.RawMessage{node(true, "v1.32.2"), node(true, "v1.32.2")}, 2, 2},
		{"a node not ready", []json.RawMessage{node(true, "v1.32.2"), node(false, "v1.32.2")}, 1, 2},
		{"a node ready at the old minor", []json.RawMessage{node(true, "v1.31.9"), node(true, "v1.32.2")}, 1, 2},
		{"a node that says no kubelet version", []json.RawMessage{node(true, "")}, 1, 1},
	}
	for _, tc := range cases {
		list := func(_ context.Context, path string) ([]json.RawMessage, bool, error) {
			if path != "/api/v1/nodes" {
				t.Errorf("listed %s", path)
			}
			return tc.nodes, true, nil
		}
		nodes, ready, err := upgrade.NodesReady(context.Background(), list, "1.32.2-do.0")
		if err != nil || nodes != tc.from || ready != tc.ready {
			t.Errorf("%s: %d of %d ready (%v), want %d of %d", tc.name, ready, nodes, err, tc.ready, tc.from)
		}
	}
}

func TestAStepIsWrittenIntoTheFileWholeKeepingItsModeAndComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.yaml")
	text := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\nmetadata:\n  name: shop\nspec:\n" +
		"  clusterName: shop\n  region: fra1\n  # the version the team tested\n  kubernetesVersion: 1.31.9-do.2 # pinned\n"
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	c := upgrade.Cluster{File: path, Kind: "DigitalOceanKubernetesCluster", Name: "shop"}
	if err := upgrade.WriteFile(c, "1.32.2-do.0", "1.33.1-do.0"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	want := strings.Replace(strings.Replace(text, "1.31.9-do.2", "1.32.2-do.0", 1), "  name: shop\n", "  name: shop\n  annotations:\n    clusterplane.dev/upgrade-to: \"1.33.1-do.0\"\n", 1)
	if string(data) != want || info.Mode().Perm() != 0o640 {
		t.Errorf("the file (%v):\n%s\nwant:\n%s", info.Mode().Perm(), data, want)
	}
	if err := upgrade.WriteFile(c, "1.33.1-do.0", "1.33.1-do.0"); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if string(data) != strings.Replace(text, "1.31.9-do.2", "1.33.1-do.0", 1) {
		t.Errorf("at the goal the file is:\n%s", data)
	}
}

func TestAMaintenanceWindowIsOpenForFourHoursFromItsStartOnItsDay(t *testing.T) {
	// 2026-11-29 is a Sunday.
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 11, day, hour, minute, 0, 0, time.UTC) }
	cases := []struct {
		name   string
		window upgrade.Window
		now    time.Time
		open   bool
		next   time.Time
	}{
		{"inside Sunday's window", upgrade.Window{Day: "sunday", Start: "03:00"}, at(29, 5, 0), true, at(29, 3, 0)},
		{"before Sunday's window", upgrade.Window{Day: "sunday", Start: "03:00"}, at(29, 2, 59), false, at(29, 3, 0)},
		{"after Sunday's window: next Sunday", upgrade.Window{Day: "sunday", Start: "03:00"}, at(29, 7, 0), false, at(29, 3, 0).AddDate(0, 0, 7)},
		{"any day: tomorrow's", upgrade.Window{Day: "any", Start: "00:00"}, at(30, 4, 0), false, at(30, 0, 0).AddDate(0, 0, 1)},
		{"a window open across midnight", upgrade.Window{Day: "monday", Start: "22:00"}, time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC), true, at(30, 22, 0)},
	}
	for _, tc := range cases {
		open, next, err := tc.window.Opens(tc.now)
		if err != nil || open != tc.open || !next.Equal(tc.next) {
			t.Errorf("%s: open %v at %s (%v), want %v at %s", tc.name, open, next, err, tc.open, tc.next)
		}
	}
	if _, _, err := (upgrade.Window{Day: "someday", Start: "03:00"}).Opens(at(29, 0, 0)); err == nil {
		t.Error("a window on no day opens")
	}
}

// Promise: upgrade-apply-unwritable-manifest-refused
func TestAManifestWhoseGoalCannotBeWrittenIsNotWritable(t *testing.T) {
	head := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\nmetadata:\n  name: shop\n"
	spec := "spec:\n  clusterName: shop\n  region: fra1\n  kubernetesVersion: 1.31.9-do.2\n"
	cases := []struct {
		name, text, want string
	}{
		{"annotations in block style", head + "  annotations:\n    team: shop\n" + spec, ""},
		{"no annotations", head + spec, ""},
		{"annotations in flow style", head + "  annotations: {clusterplane.dev/upgrade-to: \"1.33.1-do.0\", team: shop}\n" + spec, "by hand"},
		{"no version to set", head + "spec:\n  clusterName: shop\n", "no spec.kubernetesVersion"},
	}
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "shop.yaml")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		err := upgrade.Writable(upgrade.Cluster{File: path, Kind: "DigitalOceanKubernetesCluster", Name: "shop", Version: "1.31.9-do.2", Goal: "1.33.1-do.0"})
		if (tc.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path))) {
			t.Errorf("%s: %v, want %q naming the file", tc.name, err, tc.want)
		}
		if data, _ := os.ReadFile(path); string(data) != tc.text {
			t.Errorf("%s: the check changed the file", tc.name)
		}
	}
}
