package serve_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// A replica serves a list's page again while nothing changed: a write through another replica
// sharing the database, or serve's own status report, must show in its very next list.
func TestAListServedAgainShowsEveryWriteMadeSinceThroughAnyReplica(t *testing.T) {
	tests := []struct {
		name        string
		url         func(testing.TB) string
		twoReplicas bool
	}{
		{"on SQLite", databases[0].url, false},
		{"on PostgreSQL", databases[1].url, false},
		{"on PostgreSQL, writing through another replica", databases[1].url, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := tt.url(t)
			reader := &service{t: t}
			reader.url, reader.backend, reader.tokens = launch(t, db, 0)
			writer := reader
			if tt.twoReplicas {
				writer = &service{t: t}
				writer.url, writer.backend, writer.tokens = launch(t, db, 0)
			}
			code, c := writer.call(auth.Editor, "POST", "/api/v1/clusters", doClusterNamed("pages-fra1"))
			if code != http.StatusCreated {
				t.Fatalf("create the cluster: %d %v", code, c)
			}
			clusterID := c["id"].(string)
			pools := "/api/v1/clusters/" + clusterID + "/nodepools"
			// names lists the cluster's pools on the reader twice: the second answer is the
			// saved page's, and both must be the table's.
			names := func() []string {
				t.Helper()
				var first []string
				for range 2 {
					code, page := reader.call(auth.Viewer, "GET", pools, "")
					if code != http.StatusOK {
						t.Fatalf("list: %d %v", code, page)
					}
					var got []string
					for _, p := range list(page["nodepools"]) {
						got = append(got, fmt.Sprintf("%s/%v/%v", p["name"], p["generation"], p["phase"]))
					}
					if first != nil && fmt.Sprint(first) != fmt.Sprint(got) {
						t.Fatalf("the same list read twice: %v, then %v", first, got)
					}
					first = got
				}
				return first
			}
			var poolID, rv string
			steps := []struct {
				name  string
				write func()
				want  string
			}{
				{"a pool created", func() {
					code, p := writer.call(auth.Editor, "POST", pools, doPool(clusterID, 2))
					if code != http.StatusCreated {
						t.Fatalf("create the pool: %d %v", code, p)
					}
					poolID, rv = p["id"].(string), p["resource_version"].(string)
				}, "[workers/1/Pending]"},
				{"its spec changed", func() {
					code, p := writer.call(auth.Editor, "PUT", "/api/v1/nodepools/"+poolID, doPool(clusterID, 3), "If-Match", rv)
					if code != http.StatusOK {
						t.Fatalf("change the pool: %d %v", code, p)
					}
				}, "[workers/2/Pending]"},
				{"serve's workers reporting it Ready", func() {
					reportAsServe(t, writer.url, "nodepool", poolID, 2, "True")
				}, "[workers/2/Ready]"},
				{"it deleted", func() {
					code, p := writer.call(auth.Editor, "DELETE", "/api/v1/nodepools/"+poolID, "", "If-Match", "*")
					if code != http.StatusAccepted {
						t.Fatalf("delete the pool: %d %v", code, p)
					}
				}, "[workers/2/Finalizing]"},
				{"it forgotten", func() {
					if err := storeOf(t, writer.url).Forget(t.Context(), poolID); err != nil {
						t.Fatal(err)
					}
				}, "[]"},
			}
			names()
			for _, step := range steps {
				step.write()
				if got := fmt.Sprint(names()); got != step.want {
					t.Errorf("after %s the reader lists %s, want %s", step.name, got, step.want)
				}
			}
		})
	}
}
