package digitalocean_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// upgradeCluster asks the loopback DigitalOcean to upgrade cluster id to version, as the
// provider's plugin does (POST .../upgrade {"version": ...}).
func upgradeCluster(t *testing.T, do *fakedo.DO, token, id, version string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, do.URL()+"/v2/kubernetes/clusters/"+id+"/upgrade",
		strings.NewReader(`{"version":"`+version+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("the upgrade to %s answered %d: %s", version, resp.StatusCode, body)
	}
}

// upgrade apply waits on what DigitalOcean reports of a cluster: its state (godo's words) as a
// phase, its version, and its nodes' states.
func TestAClustersHealthIsItsStateVersionAndRunningNodes(t *testing.T) {
	const token = "dop_v1_health"
	ctx := context.Background()
	cases := []struct {
		name string
		fail bool
		time time.Duration
		want upgrade.Health
	}{
		{name: "an upgrade under way: moving, at the old version, no node running", time: time.Hour,
			want: upgrade.Health{Version: "1.31.9-do.2", State: "upgrading", Phase: upgrade.Moving, Nodes: 2, NodesReady: 0}},
		{name: "an upgrade ended: settled at the new version, every node running",
			want: upgrade.Health{Version: "1.32.2-do.0", State: "running", Phase: upgrade.Settled, Nodes: 2, NodesReady: 2}},
		{name: "a failed upgrade: broken, at the old version", fail: true,
			want: upgrade.Health{Version: "1.31.9-do.2", State: "degraded", Phase: upgrade.Broken, Nodes: 2, NodesReady: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			do := fakedo.New(t, token)
			id := do.SeedCluster(godo.KubernetesCluster{Name: "shop", RegionSlug: "fra1", VersionSlug: "1.31.9-do.2",
				NodePools: []*godo.KubernetesNodePool{{Name: "pool", Size: "s-2vcpu-4gb", Count: 2}}})
			cloud := digitalocean.NewUpgrades(do.URL(), token)
			before, err := cloud.Health(ctx, upgrade.Live{ID: id})
			if err != nil || before.Phase != upgrade.Settled || before.NodesReady != 2 {
				t.Fatalf("before the upgrade: %+v, %v; want settled, both nodes running", before, err)
			}
			do.SetUpgradeTime(tc.time)
			do.FailUpgrades("shop", tc.fail)
			upgradeCluster(t, do, token, id, "1.32.2-do.0")
			got, err := cloud.Health(ctx, upgrade.Live{ID: id})
			if err != nil || got != tc.want {
				t.Errorf("health %+v, %v\nwant   %+v", got, err, tc.want)
			}
		})
	}
}
