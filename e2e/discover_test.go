//go:build e2e

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// seedAccounts fills both loopback clouds as a team's tools would have: doctl and the console on
// DigitalOcean, the civo CLI on Civo; several clusters, pools of each, an auto-upgrading cluster,
// an autoscaled pool, a cluster in a second region.
func (e *env) seedAccounts() {
	e.t.Helper()
	ctx := context.Background()
	do := seed.Client{URL: e.do.URL(), Token: doToken}
	for _, c := range []seed.Cluster{
		{Tool: fakedo.Doctl, Name: "web", Region: "fra1", AutoUpgrade: true, Tags: []string{"team-web"}, Pools: []seed.Pool{{},
			{Name: "batch", Size: "s-2vcpu-4gb", AutoScale: true, Min: 1, Max: 4, Labels: map[string]string{"workload": "batch"},
				Taints: []seed.Taint{{Key: "batch", Value: "yes", Effect: "NoSchedule"}}, Tags: []string{"pool-batch"}}}},
		{Tool: seed.Console, Name: "shop", Region: "ams3", Pools: []seed.Pool{{Size: "s-2vcpu-4gb", Count: 2}, {Name: "apps", Count: 2}}},
		{Tool: fakedo.Doctl, Name: "tools", Region: "fra1", HA: true},
	} {
		if _, _, err := fakedo.Seed(ctx, do, c); err != nil {
			e.t.Fatal(err)
		}
	}
	civo := seed.Client{URL: e.civo.URL(), Token: civoToken}
	for _, c := range []seed.Cluster{
		{Name: "api", Region: "fra1", Tags: []string{"team-api"}, Pools: []seed.Pool{{},
			{Name: "workers", Size: "g4s.kube.large", Count: 2, Labels: map[string]string{"workload": "apps"}}}},
		{Name: "edge", Region: "lon1", Pools: []seed.Pool{{Count: 1}, {Name: "gpu", Size: "g4s.kube.large", Count: 1,
			Taints: []seed.Taint{{Key: "gpu", Value: "only", Effect: "NoSchedule"}}}}},
	} {
		if _, _, err := fakecivo.Seed(ctx, civo, c); err != nil {
			e.t.Fatal(err)
		}
	}
}

func TestDiscoverWritesManifestsThatDescribeTheSeededAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedAccounts()
	e.do.Reset()
	e.civo.Reset()

	want := map[string][]string{
		"digitalocean": {"shop-apps.yaml", "shop.yaml", "tools.yaml", "web-batch.yaml", "web.yaml"},
		"civo":         {"api-workers.yaml", "api.yaml", "edge-gpu.yaml", "edge.yaml"},
	}
	for cloud, files := range want {
		discoverAndCheckARepeatOfIt(t, e, cloud, files)
	}
	if r, code := e.clusterplane("validate", "accounts"); code != 0 {
		t.Fatalf("validate of the written folder exited %d:\n%s", code, r)
	}

	// What was read is the accounts' lists: DigitalOcean's one page, Civo's regions and one page
	// per region; and nothing was changed.
	for _, req := range append(e.do.Requests(""), e.civo.Requests("")...) {
		if req.Method != "GET" {
			t.Errorf("discover sent %s %s", req.Method, req.Path)
		}
	}
	// (diff asks for the sizes' prices; discover only lists clusters.)
	lists := 0
	for _, req := range e.do.Requests("") {
		if strings.HasPrefix(req.Path, "/v2/kubernetes/") {
			lists++
		}
	}
	if lists != 4 {
		t.Errorf("%d requests to DigitalOcean's Kubernetes API for 4 discovers, want one list each: %v", lists, e.do.Requests(""))
	}

	checkTheFilesSayWhatTheCloudsHold(t, e)
}

// discoverAndCheckARepeatOfIt discovers one cloud's account into a folder, checks the files it
// wrote, and checks that a second run writes the same bytes and will not overwrite them unasked,
// so that discover can be run again on an account safely.
func discoverAndCheckARepeatOfIt(t *testing.T, e *env, cloud string, files []string) {
	t.Helper()
	dir := filepath.Join("accounts", cloud)
	r, code := e.clusterplane("discover", cloud, "--dir", dir)
	if code != 0 {
		t.Fatalf("discover %s exited %d:\n%s", cloud, code, r)
	}
	entries, err := os.ReadDir(filepath.Join(e.dir, dir))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range entries {
		got = append(got, f.Name())
	}
	if !slices.Equal(got, files) {
		t.Errorf("discover %s wrote %v, want %v", cloud, got, files)
	}
	// A second run writes the same bytes into another folder; into the same one it refuses
	// to overwrite, unless --force.
	again := filepath.Join("again", cloud)
	if r, code := e.clusterplane("discover", cloud, "--dir", again); code != 0 {
		t.Fatalf("discover %s again exited %d:\n%s", cloud, code, r)
	}
	for _, f := range files {
		first, _ := os.ReadFile(filepath.Join(e.dir, dir, f))
		second, _ := os.ReadFile(filepath.Join(e.dir, again, f))
		if string(first) != string(second) {
			t.Errorf("%s differs between two runs:\n%s\n---\n%s", f, first, second)
		}
		for _, secret := range append([]string{doToken, civoToken}, kubeconfigMarks...) {
			if strings.Contains(string(first), secret) {
				t.Errorf("%s holds %q", f, secret)
			}
		}
		// diff reads both as their kind and finds nothing to replace or refuse.
		if r, code := e.clusterplane("diff", filepath.Join(dir, f), filepath.Join(again, f)); code != 0 {
			t.Errorf("diff of %s exited %d:\n%s", f, code, r)
		}
	}
	if r, code := e.clusterplane("discover", cloud, "--dir", dir); code != 3 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("discover into a folder with the files exited %d, want 3 naming --force:\n%s", code, r)
	}
	if r, code := e.clusterplane("discover", cloud, "--dir", dir, "--force"); code != 0 {
		t.Errorf("discover --force exited %d:\n%s", code, r)
	}
}

// checkTheFilesSayWhatTheCloudsHold checks what the seeded accounts hold is in the discovered
// files, and what the clouds set by themselves is not.
func checkTheFilesSayWhatTheCloudsHold(t *testing.T, e *env) {
	t.Helper()
	web := read(t, e, "accounts/digitalocean/web.yaml")
	for _, w := range []string{"autoUpgrade: true", "nodePoolName: web-default-pool", "- team-web", "clusterplane.dev/cloud-id: "} {
		if !strings.Contains(web, w) {
			t.Errorf("web.yaml lacks %q:\n%s", w, web)
		}
	}
	for _, w := range []string{"k8s", "disableSurgeUpgrade"} {
		if strings.Contains(strings.SplitN(web, "apiVersion:", 2)[1], w) {
			t.Errorf("web.yaml holds %q, which the cloud set by itself:\n%s", w, web)
		}
	}
	batch := read(t, e, "accounts/digitalocean/web-batch.yaml")
	for _, w := range []string{"autoScale: true", "minNodes: 1", "maxNodes: 4", "valueFrom:", "name: web"} {
		if !strings.Contains(batch, w) {
			t.Errorf("web-batch.yaml lacks %q:\n%s", w, batch)
		}
	}
	edge := read(t, e, "accounts/civo/edge.yaml")
	for _, w := range []string{"region: lon1", "firewall:", "network:", "# Installed applications:"} {
		if !strings.Contains(edge, w) {
			t.Errorf("edge.yaml lacks %q:\n%s", w, edge)
		}
	}
}

func read(t *testing.T, e *env, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
