package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestTheRequestLogHasALinePerRequestOfEachCloudAndNoToken(t *testing.T) {
	const token = "a-secret-token-for-the-log"
	do := fakedo.New(t, token)
	civo := fakecivo.New(t, token, "")
	path := filepath.Join(t.TempDir(), "requests")
	all := servedOf(token, map[cloud.ID]fakeclouds.Cloud{"digitalocean": do, "civo": civo})
	if err := logRequests(path, all); err != nil {
		t.Fatal(err)
	}
	if err := seedClouds(2, all); err != nil {
		t.Fatal(err)
	}
	// One list page as clusterplane's own client asks it: its line names the client by the
	// User-Agent's first word and keeps the page in the path.
	req, err := http.NewRequest("GET", do.URL()+"/v2/kubernetes/clusters?page=1&per_page=200", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("User-Agent", cloudapi.UserAgent+" (a test)")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), token) {
		t.Fatalf("the request log holds the token:\n%s", text)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	counts := map[string]int{}
	own := 0
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) != 6 || !strings.Contains(fields[0], ".") || !strings.HasPrefix(fields[4], "/") {
			t.Fatalf("line %q is not: time cloud method status path client", line)
		}
		counts[fields[1]]++
		if fields[5] == cloudapi.UserAgent && fields[4] == "/v2/kubernetes/clusters?page=1&per_page=200" {
			own++
		}
	}
	if own != 1 {
		t.Errorf("%d lines name clusterplane's own list of page 1, want 1:\n%s", own, text)
	}
	for cloud, requests := range map[string]int{"digitalocean": len(do.Requests("")), "civo": len(civo.Requests(""))} {
		if requests == 0 || counts[cloud] != requests {
			t.Errorf("%s: %d lines in the log, %d requests received", cloud, counts[cloud], requests)
		}
	}
}

func TestTheDigitalOceanStateIsLoadedAtStartAndSavedAfterEachChange(t *testing.T) {
	const token = "state-token"
	path := filepath.Join(t.TempDir(), "do.json")
	first := fakedo.New(t, token)
	if _, loaded, err := keepState(path, first); err != nil || loaded {
		t.Fatalf("keepState of no file: loaded %t, %v; want a new cloud", loaded, err)
	}
	// A cluster made through the API is saved as it is answered.
	if _, _, err := fakedo.Seed(context.Background(), seed.Client{URL: first.URL(), Token: token},
		seed.Cluster{Name: "kept", Region: "fra1", Pools: []seed.Pool{{Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	saved, err := first.Save()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), `"kept"`) {
		t.Fatalf("the cloud does not hold the cluster made:\n%s", saved)
	}
	// A second cloud started on the file serves what the first one made.
	second := fakedo.New(t, token)
	if _, loaded, err := keepState(path, second); err != nil || !loaded {
		t.Fatalf("keepState of the saved file: loaded %t, %v; want it loaded", loaded, err)
	}
	again, err := second.Save()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(saved) {
		t.Fatalf("the second cloud holds\n%s\nwhere the first held\n%s", again, saved)
	}
}

// servedOf are the loopbacks serving the clouds given, each taking token, as main makes them.
func servedOf(token string, clouds map[cloud.ID]fakeclouds.Cloud) []*served {
	var out []*served
	for _, l := range fakeclouds.All() {
		out = append(out, &served{Loopback: l, token: &token, cloud: clouds[l.ID]})
	}
	return out
}

func TestEveryCloudWithoutATokenOfItsOwnTakesTheSharedOne(t *testing.T) {
	for _, tc := range []struct {
		name, own, shared, want string
	}{
		{name: "a cloud with no token takes the shared one", own: "", shared: "bench-token", want: "bench-token"},
		{name: "a cloud's own token stays", own: "its-own", shared: "bench-token", want: "its-own"},
		{name: "no token anywhere stays empty, for usable to refuse", own: "", shared: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all []*served
			for _, l := range fakeclouds.All() {
				own := tc.own
				all = append(all, &served{Loopback: l, token: &own})
			}
			giveTokens(all, tc.shared)
			for _, c := range all {
				if *c.token != tc.want {
					t.Errorf("%s's token is %q, want %q", c.ID, *c.token, tc.want)
				}
			}
		})
	}
}

func TestACloudIsPricedAsTheTableAndHoldsTheExamplesOnlyWhenAskedAndNew(t *testing.T) {
	const token = "a-token"
	d, err := clouds.Get("digitalocean")
	if err != nil {
		t.Fatal(err)
	}
	table := d.Prices().Sizes
	l, _ := fakeclouds.Get("digitalocean")
	saved := filepath.Join(t.TempDir(), "saved.json")
	if err := os.WriteFile(saved, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		examples     bool
		state        string
		wantExamples bool
	}{
		{name: "a new cloud asked for the examples holds them", examples: true, wantExamples: true},
		{name: "a new cloud not asked holds none", examples: false},
		{name: "a cloud loaded from its state keeps what it holds", examples: true, state: saved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			do := fakedo.New(t, token)
			tok, state := token, tc.state
			c := &served{Loopback: l, token: &tok, state: &state, cloud: do, prices: table}
			ready(t, c, tc.examples)
			sizes, err := digitalocean.New(do.URL(), token, digitalocean.Options{}).SizeDetails(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sizes {
				if want := table[s.Slug]; s.PriceMonthly != want {
					t.Errorf("size %s costs $%.2f, want the table's $%.2f (unpriced when the table has none)", s.Slug, s.PriceMonthly, want)
				}
			}
			if _, found := do.Cluster(fakeclouds.ExampleDOCluster); found != tc.wantExamples {
				t.Errorf("the example cluster is there: %t, want %t", found, tc.wantExamples)
			}
		})
	}
}
