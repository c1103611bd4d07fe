package digitalocean_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

const token = "dop_v1_test_token_never_quoted"

// api is a loopback DigitalOcean answering each request with answer, counting the requests.
type api struct {
	mu    sync.Mutex
	asked []string
	*httptest.Server
}

func serve(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *api {
	t.Helper()
	a := &api{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			t.Errorf("%s came with %q, want the token", r.URL, r.Header.Get("Authorization"))
		}
		a.mu.Lock()
		a.asked = append(a.asked, r.URL.RequestURI())
		n := len(a.asked)
		a.mu.Unlock()
		answer(w, r, n)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// clusterPages answers page p of total pages of clusters named c<p>-<i>, size a page; next says
// whether a page but the last links a next one.
func clusterPages(t *testing.T, total, size int, next bool) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		if got := r.URL.Query().Get("per_page"); got != "200" {
			t.Errorf("per_page=%s, want DigitalOcean's largest page, 200", got)
		}
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var items []string
		for i := range size {
			items = append(items, fmt.Sprintf(`{"id":"id-%d-%d","name":"c%d-%d","node_pools":[{"id":"p","name":"pool"}]}`, p, i, p, i))
		}
		links := `{}`
		if next && p < total {
			// The link points elsewhere: the pager must ask its own API for page p+1, not follow it.
			links = fmt.Sprintf(`{"pages":{"next":"https://elsewhere.invalid/v2/kubernetes/clusters?page=%d"}}`, p+1)
		}
		fmt.Fprintf(w, `{"kubernetes_clusters":[%s],"links":%s,"meta":{"total":%d}}`, strings.Join(items, ","), links, total*size)
	}
}

func TestThePagerAsksPageAfterPageWhileALinkNamesANextAndThenStops(t *testing.T) {
	tests := []struct {
		name         string
		total, size  int
		next         bool
		maxPages     int
		wantClusters int
		wantAsked    int
		wantErr      string
	}{
		{name: "one page without a next link is one request", total: 1, size: 3, next: true, wantClusters: 3, wantAsked: 1},
		{name: "three linked pages are three requests", total: 3, size: 2, next: true, wantClusters: 6, wantAsked: 3},
		{name: "a page without a next link is the last, whatever the total says", total: 3, size: 2, next: false, wantClusters: 2, wantAsked: 1},
		{name: "an empty page ends the list even with a next link", total: 5, size: 0, next: true, wantClusters: 0, wantAsked: 1},
		{name: "a list longer than the bound fails naming it", total: 10, size: 1, next: true, maxPages: 4,
			wantAsked: 4, wantErr: "list DigitalOcean's Kubernetes clusters: more than 4 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, clusterPages(t, tt.total, tt.size, tt.next))
			c := digitalocean.New(a.URL, token, digitalocean.Options{MaxPages: tt.maxPages})
			got, err := c.Clusters(context.Background())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Clusters = %d clusters, %v; want the error %q", len(got), err, tt.wantErr)
				}
			} else if err != nil || len(got) != tt.wantClusters {
				t.Fatalf("Clusters = %d clusters, %v; want %d", len(got), err, tt.wantClusters)
			}
			asked := a.requests()
			if len(asked) != tt.wantAsked {
				t.Errorf("asked %v, want %d requests", asked, tt.wantAsked)
			}
			for i, uri := range asked {
				if want := fmt.Sprintf("/v2/kubernetes/clusters?page=%d&per_page=200", i+1); uri != want {
					t.Errorf("request %d is %s, want %s", i+1, uri, want)
				}
			}
			if err == nil && len(got) > 0 && (len(got[0].NodePools) != 1 || got[0].NodePools[0].Name != "pool") {
				t.Errorf("the first cluster's pools are %+v, want its pool", got[0].NodePools)
			}
		})
	}
}

func TestWalkingTheClustersStopsAtThePageTheCallerWants(t *testing.T) {
	a := serve(t, clusterPages(t, 5, 2, true))
	c := digitalocean.New(a.URL, token, digitalocean.Options{})
	var seen []string
	err := c.WalkClusters(context.Background(), func(page []digitalocean.Cluster) bool {
		for _, cl := range page {
			seen = append(seen, cl.Name)
		}
		return len(seen) < 4
	})
	if err != nil || len(seen) != 4 || seen[3] != "c2-1" {
		t.Fatalf("WalkClusters saw %v, %v; want the first two pages", seen, err)
	}
	if n := len(a.requests()); n != 2 {
		t.Errorf("asked %d pages, want 2", n)
	}
}

func TestTheNodePoolsOfAClusterArePagedAsTheClustersAre(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.EscapedPath() != "/v2/kubernetes/clusters/c%201/node_pools" {
			t.Errorf("asked %s, want the node pools of c 1", r.URL.RequestURI())
		}
		if r.URL.Query().Get("page") == "1" {
			fmt.Fprint(w, `{"node_pools":[{"id":"1","name":"a"}],"links":{"pages":{"next":"x"}}}`)
			return
		}
		fmt.Fprint(w, `{"node_pools":[{"id":"2","name":"b"}],"links":{"pages":{}}}`)
	})
	c := digitalocean.New(a.URL, token, digitalocean.Options{})
	pools, err := c.NodePools(context.Background(), "c 1")
	if err != nil || len(pools) != 2 || pools[1].Name != "b" {
		t.Fatalf("NodePools = %+v, %v; want a and b", pools, err)
	}
}

func TestARefusedRequestIsAskedAgainOnlyAsTheClientsRetryRuleSays(t *testing.T) {
	const list = `{"kubernetes_clusters":[{"id":"1","name":"dev"}],"links":{"pages":{}}}`
	tests := []struct {
		name      string
		statuses  []int // the answers in turn; the last repeats
		wantAsked int
		wantErr   string
	}{
		{name: "a 429 is asked again and then read", statuses: []int{429, 200}, wantAsked: 2},
		{name: "a 503 is asked again and then read", statuses: []int{503, 200}, wantAsked: 2},
		{name: "a lasting 500 gives up after the rule's attempts", statuses: []int{500}, wantAsked: 3,
			wantErr: "list DigitalOcean's Kubernetes clusters: gave up after 3 attempts: GET /v2/kubernetes/clusters: HTTP 500 try later"},
		{name: "a refused token is not asked again", statuses: []int{401}, wantAsked: 1,
			wantErr: "list DigitalOcean's Kubernetes clusters: GET /v2/kubernetes/clusters: HTTP 401 try later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, func(w http.ResponseWriter, _ *http.Request, n int) {
				status := tt.statuses[min(n, len(tt.statuses))-1]
				w.WriteHeader(status)
				if status == http.StatusOK {
					fmt.Fprint(w, list)
				} else {
					fmt.Fprint(w, `{"id":"x","message":"try later"}`)
				}
			})
			c := digitalocean.New(a.URL, token, digitalocean.Options{Options: cloudapi.Options{Retry: cloudapi.Backoff(2, 0)}})
			got, err := c.Clusters(context.Background())
			if tt.wantErr == "" && (err != nil || len(got) != 1) {
				t.Errorf("Clusters = %+v, %v; want dev", got, err)
			}
			if tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("Clusters = %v, want the error %q", err, tt.wantErr)
			}
			if n := len(a.requests()); n != tt.wantAsked {
				t.Errorf("asked %d times, want %d", n, tt.wantAsked)
			}
		})
	}
}

func TestTheTokenNeverAppearsInAnErrorEvenWhenTheAPIQuotesIt(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"id":"bad","message":"the token %s is not welcome"}`, token)
	})
	c := digitalocean.New(a.URL, token, digitalocean.Options{})
	ctx := context.Background()
	calls := []struct {
		name string
		call func() error
	}{
		{"the clusters", func() error { _, err := c.Clusters(ctx); return err }},
		{"a cluster", func() error { _, err := c.Cluster(ctx, "c1"); return err }},
		{"the node pools", func() error { _, err := c.NodePools(ctx, "c1"); return err }},
		{"the options", func() error { _, err := c.Options(ctx); return err }},
		{"the upgrades", func() error { _, err := c.Upgrades(ctx, "c1"); return err }},
		{"a clusterlint run", func() error { _, err := c.RunClusterlint(ctx, "c1"); return err }},
		{"clusterlint results", func() error { _, err := c.ClusterlintResults(ctx, "c1", "r1"); return err }},
		{"the kubeconfig", func() error { _, err := c.Kubeconfig(ctx, "c1"); return err }},
		{"the registry", func() error { _, err := c.HasRegistry(ctx); return err }},
	}
	for _, tt := range calls {
		t.Run("reading "+tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !strings.Contains(err.Error(), "HTTP 400") {
				t.Fatalf("error %v, want the API's HTTP 400", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error quotes the token: %v", err)
			}
		})
	}
}

func TestTheRegistryLookUpTellsNoneFromSeveralFromAFailure(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		want    bool
		wantErr bool
	}{
		{"an account with a registry has one", http.StatusOK, true, false},
		{"an account with several registries has one", http.StatusPreconditionFailed, true, false},
		{"an account without a registry has none", http.StatusNotFound, false, false},
		{"a server error decides nothing", http.StatusInternalServerError, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if r.URL.Path != "/v2/registry" {
					t.Errorf("asked %s, want /v2/registry", r.URL.Path)
				}
				w.WriteHeader(tt.status)
			})
			got, err := digitalocean.New(a.URL, token, digitalocean.Options{}).HasRegistry(context.Background())
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("HasRegistry = %t, %v; want %t, an error: %t", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestAMissingClusterIsTheAPIsNotFound(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusNotFound) })
	_, err := digitalocean.New(a.URL, token, digitalocean.Options{}).Cluster(context.Background(), "gone")
	if !cloudapi.IsNotFound(err) || !strings.HasPrefix(err.Error(), "read DigitalOcean cluster gone: ") {
		t.Errorf("Cluster = %v, want a not-found naming the cluster", err)
	}
}
