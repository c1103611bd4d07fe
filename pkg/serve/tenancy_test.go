package serve_test

import (
	"context"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// api.md says there are no tenants: roles limit what a caller may do, not which objects it
// sees, and a portal must filter by tenant itself. This holds the service to what the page says,
// so that a change to it (ownership checks, a tenant claim) is made together with the page.
// Promise: api-role-never-limits-objects
func TestEveryCallerSharesOneSetOfObjectsAsTheDocsSay(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		other, err := serve.CreateToken(context.Background(), storeOf(t, s.url).Tokens(), "tenant-b", auth.Editor, "")
		if err != nil {
			t.Fatal(err)
		}
		tenantB := &service{t: t, url: s.url, tokens: map[auth.Role]string{auth.Editor: other}}
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		id, _ := c["id"].(string)

		_, listed := tenantB.call(auth.Editor, "GET", "/api/v1/clusters", "")
		if items := list(listed["clusters"]); len(items) != 1 || items[0]["id"] != id {
			t.Errorf("another editor's list: %v, want the first editor's cluster", listed)
		}
		code, p := tenantB.call(auth.Editor, "POST", "/api/v1/nodepools", doPool(id, 2))
		if code != 201 {
			t.Fatalf("another editor's pool in the first editor's cluster: %d %v, want 201", code, p)
		}
		path := "/api/v1/nodepools/" + p["id"].(string)
		if code, out := s.call(auth.Editor, "PUT", path, doPool(id, 3), "If-Match", "*"); code != 200 {
			t.Errorf("the first editor changing the other's pool: %d %v, want 200", code, out)
		}
		if code, _ := s.call(auth.Viewer, "GET", path, ""); code != 200 {
			t.Errorf("a viewer reading the other editor's pool: %d, want 200", code)
		}
	})
}
