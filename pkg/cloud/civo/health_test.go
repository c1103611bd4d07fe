package civo_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/civo/civogo"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

// upgrade apply waits on what Civo reports of a cluster: its status as a phase (ACTIVE settled,
// UPGRADING moving, what terraform-provider-civo does not wait through broken), its version and
// its instances' statuses.
func TestACivoClustersHealthIsItsStatusVersionAndActiveInstances(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		fail bool
		// reads are the GETs before Health's: the fake answers UPGRADING for two.
		reads int
		want  upgrade.Phase
		state string
	}{
		{name: "an upgrade under way is moving", want: upgrade.Moving, state: "UPGRADING"},
		{name: "an upgrade ended is settled", reads: 2, want: upgrade.Settled, state: "ACTIVE"},
		{name: "a failed upgrade is broken", fail: true, reads: 2, want: upgrade.Broken, state: "ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region)
			f.BuildPolls = 2
			id := f.SeedCluster(civogo.KubernetesCluster{Name: "shop", Version: "1.30.5-k3s1", ClusterType: "k3s", NumTargetNode: 2})
			f.FailUpgrades("shop", tc.fail)
			req, err := http.NewRequest(http.MethodPut, f.URL()+"/v2/kubernetes/clusters/"+id,
				strings.NewReader(`{"region":"`+region+`","kubernetes_version":"1.31.1-k3s1"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("the upgrade: %v %v", resp, err)
			}
			_ = resp.Body.Close()
			cloud := civo.NewUpgrades(f.URL(), token, region)
			for range tc.reads {
				if _, err := cloud.Health(ctx, upgrade.Live{ID: id}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := cloud.Health(ctx, upgrade.Live{ID: id})
			if err != nil || got.Phase != tc.want || got.State != tc.state {
				t.Errorf("health %+v, %v; want %s (%s)", got, err, tc.want, tc.state)
			}
			if tc.want == upgrade.Settled && (got.Version != "1.31.1-k3s1" || got.Nodes == 0 || got.NodesReady != got.Nodes) {
				t.Errorf("after the upgrade: %+v, want 1.31.1-k3s1 with every instance active", got)
			}
		})
	}
}
