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
					if err := storeOf(t, writer.url).Objects().Forget(t.Context(), poolID); err != nil {
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

// A list is read page by page with the cursor each page gives (next_cursor), null on the last;
// a cursor the API did not give, or one sent with an offset, is refused naming the parameter.
// Promise: api-cursor-pages-every-object-once
// Promise: api-cursor-not-given-refused
func TestAListIsReadPageByPageWithTheCursorEachPageGives(t *testing.T) {
	s := &service{t: t}
	s.url, s.backend, s.tokens = launch(t, databases[0].url(t), 0)
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("cursor-%d", i)
		if code, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doClusterNamed(name)); code != http.StatusCreated {
			t.Fatalf("create %s: %d %v", name, code, c)
		}
		want = append(want, name)
	}
	var got []string
	path := "/api/v1/clusters?limit=2"
	for pages := 0; ; pages++ {
		code, page := s.call(auth.Viewer, "GET", path, "")
		if code != http.StatusOK || pages > 5 {
			t.Fatalf("GET %s: %d %v (page %d)", path, code, page, pages)
		}
		for _, c := range list(page["clusters"]) {
			got = append(got, c["name"].(string))
		}
		next, present := page["next_cursor"]
		if !present {
			t.Fatalf("a page without next_cursor: %v", page)
		}
		if next == nil {
			break
		}
		path = "/api/v1/clusters?limit=2&cursor=" + next.(string)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read %v page by page, want %v", got, want)
	}
	_, first := s.call(auth.Viewer, "GET", "/api/v1/clusters?limit=2", "")
	cursor := first["next_cursor"].(string)
	refused := []struct{ name, query, field string }{
		{"a cursor the API did not give", "cursor=bm90LWEtY3Vyc29y", "cursor"},
		{"a cursor with an offset", "cursor=" + cursor + "&offset=2", "offset"},
	}
	for _, r := range refused {
		code, out := s.call(auth.Viewer, "GET", "/api/v1/clusters?"+r.query, "")
		e, _ := out["error"].(map[string]any)
		problems := list(e["problems"])
		if code != http.StatusBadRequest || len(problems) != 1 || problems[0]["field"] != r.field {
			t.Errorf("%s: %d %v, want 400 naming %s", r.name, code, out, r.field)
		}
	}
}
