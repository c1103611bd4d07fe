package civo_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

const token = "civo_test_token_never_quoted"

// api is a loopback Civo answering each request with answer, counting the requests.
type api struct {
	mu    sync.Mutex
	asked []string
	*httptest.Server
}

func serve(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *api {
	t.Helper()
	a := &api{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Authorization"), "bearer "+token) {
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

// clusterPages answers page p of pages pages of clusters named c<p>-<i>, size a page. The
// answer carries a kubeconfig, which the model must drop.
func clusterPages(t *testing.T, pages, size int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		if got := r.URL.Query().Get("per_page"); got != "100" {
			t.Errorf("per_page=%s, want Civo's largest page, 100", got)
		}
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var items []string
		for i := range size {
			items = append(items, fmt.Sprintf(`{"id":"id-%d-%d","name":"c%d-%d","kubeconfig":"secret","pools":[{"id":"pool","count":2}]}`, p, i, p, i))
		}
		fmt.Fprintf(w, `{"page":%d,"per_page":100,"pages":%d,"items":[%s]}`, p, pages, strings.Join(items, ","))
	}
}

func TestThePagerAsksPageAfterPageUntilTheLastAndThenStops(t *testing.T) {
	tests := []struct {
		name         string
		pages, size  int
		maxPages     int
		wantClusters int
		wantAsked    int
		wantErr      string
	}{
		{name: "one page is one request", pages: 1, size: 3, wantClusters: 3, wantAsked: 1},
		{name: "three pages are three requests", pages: 3, size: 2, wantClusters: 6, wantAsked: 3},
		{name: "an answer of no pages is the last", pages: 0, size: 2, wantClusters: 2, wantAsked: 1},
		{name: "an empty page ends the list whatever the pages say", pages: 5, size: 0, wantClusters: 0, wantAsked: 1},
		{name: "a list longer than the bound fails naming it and the region", pages: 10, size: 1, maxPages: 4,
			wantAsked: 4, wantErr: "list Civo's Kubernetes clusters in lon1: more than 4 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, clusterPages(t, tt.pages, tt.size))
			c := civo.New(a.URL, token, civo.Options{MaxPages: tt.maxPages})
			got, err := c.Clusters(context.Background(), "lon1")
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
				if want := fmt.Sprintf("/v2/kubernetes/clusters?page=%d&per_page=100&region=lon1", i+1); uri != want {
					t.Errorf("request %d is %s, want %s", i+1, uri, want)
				}
			}
			if err == nil && len(got) > 0 && (len(got[0].Pools) != 1 || got[0].Pools[0].Count != 2) {
				t.Errorf("the first cluster's pools are %+v, want its pool of 2", got[0].Pools)
			}
		})
	}
}

func TestWalkingTheClustersStopsAtThePageTheCallerWants(t *testing.T) {
	a := serve(t, clusterPages(t, 5, 2))
	c := civo.New(a.URL, token, civo.Options{})
	var seen []string
	err := c.WalkClusters(context.Background(), "fra1", func(page []civo.Cluster) bool {
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

func TestARefusedRequestIsAskedAgainOnlyAsTheClientsRetryRuleSays(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int // the answers in turn; the last repeats
		wantAsked int
		wantErr   string
	}{
		{name: "a 429 is asked again and then read", statuses: []int{429, 200}, wantAsked: 2},
		{name: "a 502 is asked again and then read", statuses: []int{502, 200}, wantAsked: 2},
		{name: "a lasting 500 gives up after the rule's attempts", statuses: []int{500}, wantAsked: 3,
			wantErr: "list Civo's regions: gave up after 3 attempts: GET /v2/regions: HTTP 500 busy"},
		{name: "a refused token is not asked again", statuses: []int{403}, wantAsked: 1,
			wantErr: "list Civo's regions: GET /v2/regions: HTTP 403 busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := serve(t, func(w http.ResponseWriter, _ *http.Request, n int) {
				status := tt.statuses[min(n, len(tt.statuses))-1]
				w.WriteHeader(status)
				if status == http.StatusOK {
					fmt.Fprint(w, `[{"code":"LON1"},{"code":"FRA1"}]`)
				} else {
					fmt.Fprint(w, `{"code":"x","reason":"busy"}`)
				}
			})
			c := civo.New(a.URL, token, civo.Options{Options: cloudapi.Options{Retry: cloudapi.Backoff(2, 0)}})
			got, err := c.Regions(context.Background())
			if tt.wantErr == "" && (err != nil || len(got) != 2 || got[0].Code != "LON1") {
				t.Errorf("Regions = %+v, %v; want LON1 and FRA1", got, err)
			}
			if tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Errorf("Regions = %v, want the error %q", err, tt.wantErr)
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
		fmt.Fprintf(w, `{"code":"bad","reason":"the token %s is not welcome"}`, token)
	})
	c := civo.New(a.URL, token, civo.Options{})
	ctx := context.Background()
	calls := []struct {
		name string
		call func() error
	}{
		{"the clusters", func() error { _, err := c.Clusters(ctx, "lon1"); return err }},
		{"a cluster", func() error { _, err := c.Cluster(ctx, "lon1", "c1"); return err }},
		{"the versions", func() error { _, err := c.Versions(ctx); return err }},
		{"the regions", func() error { _, err := c.Regions(ctx); return err }},
		{"the kubeconfig", func() error { _, err := c.Kubeconfig(ctx, "lon1", "c1"); return err }},
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

func TestAClusterIsAskedForInItsRegionAndAMissingOneIsNotFound(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.RequestURI() != "/v2/kubernetes/clusters/c1?region=fra1" {
			t.Errorf("asked %s, want cluster c1 in fra1", r.URL.RequestURI())
		}
		w.WriteHeader(http.StatusNotFound)
	})
	_, err := civo.New(a.URL, token, civo.Options{}).Cluster(context.Background(), "fra1", "c1")
	if !cloudapi.IsNotFound(err) || !strings.HasPrefix(err.Error(), "read Civo cluster c1: ") {
		t.Errorf("Cluster = %v, want a not-found naming the cluster", err)
	}
}
