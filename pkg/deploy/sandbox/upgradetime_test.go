package sandbox

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
)

// The sandbox's DigitalOcean takes an upgrade over $CLUSTERPLANE_SANDBOX_UPGRADE_TIME, 4s
// without it, so that what reads a cluster right after its upgrade sees it upgrading, as on
// DigitalOcean.
func TestTheSandboxsDigitalOceanTakesItsUpgradeTime(t *testing.T) {
	cases := []struct {
		name, env string
		// right is the cluster's state right after the POST; later, after waiting wait, if any.
		right godo.KubernetesClusterStatusState
		wait  time.Duration
		later godo.KubernetesClusterStatusState
	}{
		{"without the variable an upgrade takes the default 4s", "", "upgrading", 0, ""},
		{"an upgrade takes the time the variable says", "300ms", "upgrading", 600 * time.Millisecond, "running"},
		{"0 upgrades at once", "0", "running", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(UpgradeTimeEnv, tc.env)
			clouds, err := StartClouds(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer clouds.Close()
			do := doOf(clouds)
			id := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "ams3", VersionSlug: "1.31.9-do.0"})
			c := godo.NewFromToken(Token("digitalocean"))
			c.BaseURL, _ = url.Parse(do.URL())
			ctx := context.Background()
			if _, err := c.Kubernetes.Upgrade(ctx, id, &godo.KubernetesClusterUpgradeRequest{VersionSlug: "1.32.2-do.0"}); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				wait  time.Duration
				state godo.KubernetesClusterStatusState
			}{{0, tc.right}, {tc.wait, tc.later}}
			for _, s := range steps {
				if s.state == "" {
					continue
				}
				time.Sleep(s.wait)
				cl, _, err := c.Kubernetes.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				version := map[godo.KubernetesClusterStatusState]string{"upgrading": "1.31.9-do.0", "running": "1.32.2-do.0"}[s.state]
				if cl.Status.State != s.state || cl.VersionSlug != version {
					t.Errorf("%s after the POST: %s at %s, want %s at %s", s.wait, cl.Status.State, cl.VersionSlug, s.state, version)
				}
			}
		})
	}
}

func TestAnUpgradeTimeThatIsNoDurationStopsTheSandboxNamingTheVariable(t *testing.T) {
	for _, value := range []string{"soon", "4", "-1s"} {
		t.Run(value, func(t *testing.T) {
			t.Setenv(UpgradeTimeEnv, value)
			clouds, err := StartClouds(t.TempDir())
			if err == nil {
				clouds.Close()
				t.Fatalf("%s=%q started the clouds, want a refusal", UpgradeTimeEnv, value)
			}
			if !strings.Contains(err.Error(), UpgradeTimeEnv) || !strings.Contains(err.Error(), value) {
				t.Errorf("error %q, want it to name %s and %q", err, UpgradeTimeEnv, value)
			}
		})
	}
}
