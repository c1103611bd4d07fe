package serve_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// A replica serves an object it read before as it encoded it, while no write has happened since
// (api.pages). Every write must end that, whoever makes it: this replica's API, its workers'
// reports (the store), or another replica on the same database.
func TestAnObjectReadAgainAfterAnyWriteIsTheNewOne(t *testing.T) {
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			a := replicaOn(t, url)
			// Another replica on the same database (PostgreSQL's way to several); on SQLite a
			// second one on the file, which answers too.
			b := replicaOn(t, url)
			_, c := a.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
			_, p := a.call(auth.Editor, "POST", "/api/v1/nodepools", doPool(c["id"].(string), 2))
			id := p["id"].(string)
			path := "/api/v1/nodepools/" + id
			version := p["resource_version"].(string)
			read := func(s *service, want string) {
				t.Helper()
				// Twice: the second is the one a saved answer would serve.
				for range 2 {
					code, got := s.call(auth.Viewer, "GET", path, "")
					if code != 200 || got["resource_version"] != want {
						t.Fatalf("GET %s: %d, resource_version %v, want %s", s.url, code, got["resource_version"], want)
					}
				}
			}
			read(a, version)
			read(b, version)
			for i, write := range []struct {
				name string
				on   *service
			}{{"an update through this replica", a}, {"an update through the other", b}} {
				code, updated := write.on.call(auth.Editor, "PUT", path, doPool(c["id"].(string), 3+i), "If-Match", version)
				if code != 200 {
					t.Fatalf("%s: %d %v", write.name, code, updated)
				}
				version = updated["resource_version"].(string)
				read(a, version)
				read(b, version)
			}
			// A worker's report is a write of the store's, through no route: it sets the phase.
			for _, s := range []*service{a, b} {
				if _, got := s.call(auth.Viewer, "GET", path, ""); got["phase"] == "Ready" {
					t.Fatalf("before the report, already Ready: %v", got)
				}
			}
			_, cur := a.call(auth.Viewer, "GET", path, "")
			reportAsServe(t, a.url, store.NodePool, id, int64(cur["generation"].(float64)), "True")
			for _, s := range []*service{a, b} {
				if _, got := s.call(auth.Viewer, "GET", path, ""); got["phase"] != "Ready" {
					t.Fatalf("after the report, GET %s: phase %v, want Ready", s.url, got["phase"])
				}
			}
		})
	}
}

// replicaOn starts an API-only replica on the database url.
func replicaOn(t *testing.T, url string) *service {
	u, backend, tokens := launch(t, url, 0)
	return &service{t: t, url: u, backend: backend, tokens: tokens}
}
