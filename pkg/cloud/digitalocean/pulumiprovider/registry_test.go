package pulumiprovider_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func TestHasRegistryReadsDigitalOceansAnswerAndNeverGuesses(t *testing.T) {
	const token = "dop_v1_registry_test_token"
	tests := []struct {
		name   string
		status int
		token  string
		want   pulumiprovider.Registry
	}{
		{"an account with a registry has one", http.StatusOK, token, pulumiprovider.RegistryFound},
		{"an account with several registries has one (412 asks for the newer API)", http.StatusPreconditionFailed, token, pulumiprovider.RegistryFound},
		{"an account without a registry has none", http.StatusNotFound, token, pulumiprovider.RegistryMissing},
		{"a server error decides nothing", http.StatusInternalServerError, token, pulumiprovider.RegistryUnknown},
		{"a refused token decides nothing", http.StatusUnauthorized, token, pulumiprovider.RegistryUnknown},
		{"without a token nothing is asked", http.StatusNotFound, "", pulumiprovider.RegistryUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(digitalocean.TokenEnv, "")
			asked := false
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = true
				if r.URL.Path != "/v2/registry" || r.Header.Get("Authorization") != "Bearer "+token {
					t.Errorf("request %s with %q, want GET /v2/registry with the token", r.URL.Path, r.Header.Get("Authorization"))
				}
				w.WriteHeader(tt.status)
			}))
			defer server.Close()
			cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: tt.token, ApiUrl: server.URL + "/"}
			if got := pulumiprovider.HasRegistry(context.Background(), cfg); got != tt.want {
				t.Errorf("HasRegistry = %v, want %v", got, tt.want)
			}
			if asked != (tt.token != "") {
				t.Errorf("asked the API: %t, want %t", asked, tt.token != "")
			}
		})
	}
}

func TestHasRegistryOfAnUnreachableAPIDecidesNothing(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "t", ApiUrl: url}
	if got := pulumiprovider.HasRegistry(context.Background(), cfg); got != pulumiprovider.RegistryUnknown {
		t.Errorf("HasRegistry = %v, want unknown", got)
	}
}

func TestLiveVersionFindsAClusterOnAnyPageOfTheAccountsClusters(t *testing.T) {
	do := fakedo.New(t, "tok")
	for i := range 230 {
		do.SeedCluster(godo.KubernetesCluster{Name: fmt.Sprintf("c%03d", i), RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-1vcpu-2gb", Count: 1}}})
	}
	do.EditCluster(mustFind(t, do, "c225").ID, func(c *godo.KubernetesCluster) { c.VersionSlug = "1.31.9-do.2" })
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: do.URL()}
	tests := []struct{ name, want string }{
		{"c000", "1.31.1-do.5"},
		{"c225", "1.31.9-do.2"}, // on the second page of 200
		{"new", ""},
	}
	for _, tt := range tests {
		got, err := pulumiprovider.LiveVersion(context.Background(), cfg, tt.name)
		if err != nil || got != tt.want {
			t.Errorf("LiveVersion(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	// An answer that leaves a listed cluster's version out (a fault trial's proxy) says nothing of
	// it: never "no such cluster", which lets an older manifest through.
	hiding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"kubernetes_clusters": [{"id": "c1", "name": "c010", "region": "fra1"}], "links": {}, "meta": {"total": 1}}`))
	}))
	defer hiding.Close()
	hidden := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: hiding.URL}
	if got, err := pulumiprovider.LiveVersion(context.Background(), hidden, "c010"); err == nil ||
		!strings.Contains(err.Error(), "DigitalOcean lists cluster c010 without the version it runs") {
		t.Errorf("a cluster listed without its version: LiveVersion = %q, %v; want an error saying so", got, err)
	}
	if got, err := pulumiprovider.LiveVersion(context.Background(), hidden, "other"); err != nil || got != "" {
		t.Errorf("no cluster of the name in that answer: LiveVersion = %q, %v; want none", got, err)
	}
	bad := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "wrong", ApiUrl: do.URL()}
	if _, err := pulumiprovider.LiveVersion(context.Background(), bad, "c000"); err == nil ||
		!strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a bad token: %v, want HTTP 401 without the token", err)
	}
}

func mustFind(t *testing.T, do *fakedo.DO, name string) godo.KubernetesCluster {
	t.Helper()
	c, ok := do.ClusterNamed(name)
	if !ok {
		t.Fatalf("no cluster %s", name)
	}
	return c
}

func TestLiveVersionWaitsAsDigitalOceansRateLimitAsksAndThenGivesUpInTime(t *testing.T) {
	const list = `{"kubernetes_clusters":[{"name":"dev","version":"1.31.1-do.5"}],"links":{"pages":{}}}`
	tests := []struct {
		name string
		// answers are the API's answers in turn: a status and its Retry-After; the last repeats.
		answers  []answer
		wantErr  string // "" for success
		atLeast  time.Duration
		atMost   time.Duration
		maxAsked int
	}{
		{name: "a 429 with Retry-After 1 then an answer", answers: []answer{{429, "1"}, {200, ""}},
			atLeast: time.Second, atMost: 3 * time.Second, maxAsked: 2},
		{name: "a 429 with Retry-After as an HTTP date then an answer",
			answers: []answer{{429, time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)}, {200, ""}},
			atMost:  4 * time.Second, maxAsked: 2},
		{name: "a 503 without Retry-After then an answer (backoff)", answers: []answer{{503, ""}, {200, ""}},
			atMost: 3 * time.Second, maxAsked: 2},
		{name: "a permanent 429 fails naming it after a few tries", answers: []answer{{429, "1"}},
			wantErr: "HTTP 429", atLeast: 3 * time.Second, atMost: 6 * time.Second, maxAsked: 4},
		{name: "a 429 asking for an hour fails at once", answers: []answer{{429, "3600"}},
			wantErr: "HTTP 429", atMost: time.Second, maxAsked: 1},
		{name: "a refused token is not asked again", answers: []answer{{401, ""}},
			wantErr: "HTTP 401", atMost: time.Second, maxAsked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			asked := 0
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				a := tt.answers[min(asked, len(tt.answers)-1)]
				asked++
				mu.Unlock()
				if a.retryAfter != "" {
					w.Header().Set("Retry-After", a.retryAfter)
				}
				w.WriteHeader(a.status)
				if a.status == http.StatusOK {
					fmt.Fprint(w, list)
				} else {
					fmt.Fprint(w, `{"id":"too_many_requests","message":"slow down"}`)
				}
			}))
			defer server.Close()
			cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: server.URL}
			start := time.Now()
			got, err := pulumiprovider.LiveVersion(context.Background(), cfg, "dev")
			took := time.Since(start)
			if tt.wantErr == "" && (err != nil || got != "1.31.1-do.5") {
				t.Errorf("LiveVersion = %q, %v; want 1.31.1-do.5", got, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("LiveVersion = %q, %v; want an error naming %s", got, err, tt.wantErr)
			}
			if took < tt.atLeast || took > tt.atMost {
				t.Errorf("took %v, want between %v and %v", took, tt.atLeast, tt.atMost)
			}
			mu.Lock()
			defer mu.Unlock()
			if asked > tt.maxAsked {
				t.Errorf("asked %d times, want at most %d", asked, tt.maxAsked)
			}
		})
	}
}

type answer struct {
	status     int
	retryAfter string
}

// Promise: environment-token-only-to-its-own-api
func TestAnAPIURLInTheConfigNeverGetsTheEnvironmentsToken(t *testing.T) {
	const envToken = "dop_v1_env_token_never_sent"
	t.Setenv(digitalocean.TokenEnv, envToken)
	var mu sync.Mutex
	var got []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusOK)
	}))
	defer server.Close()
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiUrl: server.URL}
	if r := pulumiprovider.HasRegistry(context.Background(), cfg); r != pulumiprovider.RegistryUnknown {
		t.Errorf("HasRegistry = %v, want unknown", r)
	}
	_, err := pulumiprovider.LiveVersion(context.Background(), cfg, "dev")
	if err == nil || !strings.Contains(err.Error(), "providerConfig.apiUrl") || strings.Contains(err.Error(), envToken) {
		t.Errorf("LiveVersion = %v, want a refusal naming providerConfig.apiUrl without the token", err)
	}
	mu.Lock()
	defer mu.Unlock()
	withToken := 0
	for _, auth := range got {
		if strings.Contains(auth, envToken) {
			withToken++
		}
	}
	if len(got) != 0 {
		t.Errorf("the config's API URL was asked %d times, %d with the environment's token; want never", len(got), withToken)
	}
}

// The comparison that follows an up which read the cluster from DigitalOcean carries that up's
// state into the program (upread.Carry): the version is taken from there and the account's
// clusters are not listed. A program that carries nothing, or a state without that cluster or
// its version, lists them as before.
func TestLiveVersionTakesTheVersionAnUpJustReadWithoutListingTheAccount(t *testing.T) {
	do := fakedo.New(t, "tok")
	do.SeedCluster(godo.KubernetesCluster{Name: "dev", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-1vcpu-2gb", Count: 1}}})
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: do.URL()}
	const clusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	tests := []struct {
		name string
		// read is what the program carries; nil carries nothing.
		read      upread.Read
		want      string
		wantLists int
	}{
		{name: "the up's state carried", want: "1.31.9-do.2", wantLists: 0,
			read: upread.Read{{Type: clusterType, Outputs: map[string]any{"name": "dev", "version": "1.31.9-do.2"}}}},
		{name: "nothing carried", want: "1.31.1-do.5", wantLists: 1},
		{name: "a state without the cluster", want: "1.31.1-do.5", wantLists: 1,
			read: upread.Read{{Type: clusterType, Outputs: map[string]any{"name": "other", "version": "1.31.9-do.2"}}}},
		{name: "a state without the cluster's version", want: "1.31.1-do.5", wantLists: 1,
			read: upread.Read{{Type: clusterType, Outputs: map[string]any{"name": "dev"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(do.Requests(http.MethodGet))
			var got string
			_, err := mockrun.Run(func(ctx *pulumi.Context) error {
				if tt.read != nil {
					ctx = upread.Carry(ctx, tt.read)
				}
				var err error
				got, err = pulumiprovider.LiveVersion(ctx.Context(), cfg, "dev")
				return err
			}, mockrun.Options{})
			if err != nil || got != tt.want {
				t.Errorf("LiveVersion = %q, %v; want %q", got, err, tt.want)
			}
			if lists := len(do.Requests(http.MethodGet)) - before; lists != tt.wantLists {
				t.Errorf("%d requests to DigitalOcean, want %d", lists, tt.wantLists)
			}
		})
	}
}

// The one list of the account that finds a cluster's version also tells whether its default pool
// is gone: pools listed, none tagged as the default (deleted, or untagged, outside clusterplane).
func TestLiveClusterTellsADefaultPoolGoneFromTheSameList(t *testing.T) {
	do := fakedo.New(t, "tok")
	pool := func(tags ...string) []*godo.KubernetesNodePool {
		return []*godo.KubernetesNodePool{{Name: "p", Size: "s-1vcpu-2gb", Count: 1, Tags: tags}}
	}
	do.SeedCluster(godo.KubernetesCluster{Name: "tagged", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5", NodePools: pool(dofacts.DefaultPoolTag)})
	do.SeedCluster(godo.KubernetesCluster{Name: "untagged", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5", NodePools: pool("team")})
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: do.URL()}
	for _, tt := range []struct {
		name, cluster, version string
		gone                   bool
	}{
		{"a cluster with a pool tagged as the default keeps it", "tagged", "1.31.1-do.5", false},
		{"a cluster whose pools carry no default tag has lost it", "untagged", "1.31.1-do.5", true},
		{"a cluster the account does not hold has no pool to lose", "absent", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(do.Requests(http.MethodGet))
			live, err := pulumiprovider.LiveCluster(context.Background(), cfg, tt.cluster)
			if err != nil || live.Version != tt.version || live.DefaultPoolGone != tt.gone {
				t.Errorf("LiveCluster = %+v, %v; want version %q, default pool gone %t", live, err, tt.version, tt.gone)
			}
			if lists := len(do.Requests(http.MethodGet)) - before; lists != 1 {
				t.Errorf("%d requests, want the one list", lists)
			}
		})
	}
}

// Within a run (runlist), the look-ups by name of every stack take the account's clusters from
// the run's one list; outside any run, each look-up lists the account itself.
func TestTheLookUpsOfARunListTheAccountOnce(t *testing.T) {
	do := fakedo.New(t, "tok")
	id := do.SeedCluster(godo.KubernetesCluster{Name: "c1", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "p", Size: "s-1vcpu-2gb", Count: 1, Tags: []string{dofacts.DefaultPoolTag}}}})
	do.SeedCluster(godo.KubernetesCluster{Name: "c2", RegionSlug: "fra1", VersionSlug: "1.32.2-do.1",
		NodePools: []*godo.KubernetesNodePool{{Name: "q", Size: "s-1vcpu-2gb", Count: 1}}})
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: do.URL()}
	lookUps := func(t *testing.T, ctx context.Context) {
		t.Helper()
		for _, name := range []string{"c1", "c2", "absent"} {
			if _, err := pulumiprovider.LiveCluster(ctx, cfg, name); err != nil {
				t.Fatal(err)
			}
			if _, err := pulumiprovider.ClustersNamed(ctx, cfg, name); err != nil {
				t.Fatal(err)
			}
		}
		if named, err := pulumiprovider.PoolsNamed(ctx, cfg, id, "p"); err != nil || len(named) != 1 {
			t.Fatalf("PoolsNamed = %v, %v; want pool p", named, err)
		}
	}
	for _, tt := range []struct {
		name  string
		ctx   context.Context
		lists int
	}{
		{"a run lists the account once for all its look-ups", runlist.With(context.Background(), runlist.New()), 1},
		{"look-ups outside a run each list it", context.Background(), 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			do.Reset()
			lookUps(t, tt.ctx)
			lists := 0
			for _, r := range do.Requests(http.MethodGet) {
				if r.Path == "/v2/kubernetes/clusters" {
					lists++
				}
			}
			if lists != tt.lists {
				t.Errorf("the account's clusters were listed %d times, want %d", lists, tt.lists)
			}
		})
	}
}
