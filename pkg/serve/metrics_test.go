package serve_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/google/uuid"
)

// scrape reads GET /metrics (no token: a scraper has none) and returns its clusterplane_ series,
// each line's name and labels mapped to its value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d: %s", resp.StatusCode, data)
	}
	series := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "clusterplane_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("series %q: %v", line, err)
		}
		series[line[:i]] = v
	}
	return series
}

var labelValue = regexp.MustCompile(`="([^"]*)"`)

// The "Done when": no metric carries an unbounded label. Requests to ever new ids, on
// routes and off them, add no series: each is counted under its route's pattern.
// Promise: api-metrics-bounded-labels
func TestMetricsSeriesStayFixedWhateverIdsAreAskedFor(t *testing.T) {
	onEachDatabase(t, 2, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		s.waitReady("/api/v1/clusters/" + c["id"].(string))
		ask := func(n int) []string {
			var ids []string
			for range n {
				id := uuid.NewString()
				ids = append(ids, id)
				s.call(auth.Viewer, "GET", "/api/v1/clusters/"+id, "")
				s.call(auth.Viewer, "GET", "/api/v1/nodepools/"+id+"/status", "")
				s.call(auth.Viewer, "GET", "/nowhere/"+id, "")
			}
			return ids
		}
		ask(5) // every series these requests (and a scrape) make exists from here on
		scrape(t, s.url)
		before := scrape(t, s.url)
		ids := ask(50)
		after := scrape(t, s.url)
		for series := range after {
			if _, ok := before[series]; !ok {
				t.Errorf("a new series after requests to new ids: %s", series)
			}
			for _, m := range labelValue.FindAllStringSubmatch(series, -1) {
				for _, id := range append(ids, c["id"].(string)) {
					if strings.Contains(m[1], id) {
						t.Errorf("an id in a label: %s", series)
					}
				}
			}
		}
		const notFound = `clusterplane_http_requests_total{method="GET",route="/api/v1/clusters/{id}",status="404"}`
		if got := after[notFound] - before[notFound]; got != 50 {
			t.Errorf("%s grew by %v, want 50", notFound, got)
		}
		if got := after[`clusterplane_http_requests_total{method="GET",route="unmatched",status="404"}`]; got != 55 {
			t.Errorf("requests no route matched: %v, want 55", got)
		}
		if got := after[`clusterplane_reconcile_duration_seconds_count{kind="reconcile",outcome="completed"}`]; got < 1 {
			t.Errorf("completed reconciles: %v, want at least the cluster's", got)
		}
		if got := after[`clusterplane_objects{condition="Ready",status="True",type="cluster"}`]; got != 1 {
			t.Errorf("Ready clusters: %v, want 1", got)
		}
	})
}

// The fleet's monthly cost is the sum of its objects' monthly_cost, read at each scrape.
// Promise: api-metrics-fleet-cost
func TestTheFleetsMonthlyCostIsTheSumOfItsObjects(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		cst := s.waitReady("/api/v1/clusters/" + c["id"].(string))
		_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools", doPool(c["id"].(string), 2))
		pst := s.waitReady("/api/v1/nodepools/" + p["id"].(string))
		var want float64
		for _, st := range []map[string]any{cst, pst} {
			md, _ := st["metadata"].(map[string]any)
			cost, _ := md["monthly_cost"].(map[string]any)
			v, _ := cost["max"].(float64)
			want += v
		}
		got := scrape(t, s.url)
		if want == 0 || got[`clusterplane_fleet_monthly_cost_usd{bound="max"}`] != want {
			t.Errorf("the fleet's monthly cost (max) = %v, want %v, its objects' sum", got[`clusterplane_fleet_monthly_cost_usd{bound="max"}`], want)
		}
		if got[`clusterplane_objects{condition="Ready",status="True",type="nodepool"}`] != 1 {
			t.Errorf("Ready pools: %v, want 1", got[`clusterplane_objects{condition="Ready",status="True",type="nodepool"}`])
		}
	})
}
