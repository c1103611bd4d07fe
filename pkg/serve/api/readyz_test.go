package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// askProbe sends GET path and returns the status and what the answer says: its text, or the
// message of an error body.
func askProbe(t *testing.T, url, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && json.Unmarshal(data, &out) == nil {
		return resp.StatusCode, out.Error.Code + ": " + out.Error.Message
	}
	return resp.StatusCode, string(data)
}

func TestReadyzAnswersOkOnlyWhileTheReplicaCanServeAndHealthzAlways(t *testing.T) {
	exec := func(query string) func(t *testing.T, s *api.Server, st *store.Store) {
		return func(t *testing.T, _ *api.Server, st *store.Store) {
			if _, err := st.DB.ExecContext(context.Background(), query); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		// before puts the replica in the state the case is about.
		before func(t *testing.T, s *api.Server, st *store.Store)
		status int
		says   string
	}{
		{"it answers ok while the database answers and its tables are this build's", nil, http.StatusOK, "ok\n"},
		{"it answers 503 once shutdown has begun", func(_ *testing.T, s *api.Server, _ *store.Store) { s.ShuttingDown() },
			http.StatusServiceUnavailable, "NOT_READY: shutting down"},
		{"it answers 503 while the database is closed", func(_ *testing.T, _ *api.Server, st *store.Store) { st.Close() },
			http.StatusServiceUnavailable, "NOT_READY: the database does not answer"},
		{"it answers 503 while the service's tables are older than this build's",
			exec(fmt.Sprintf(`UPDATE clusterplane_schema_version SET version = %d`, store.SchemaVersion-1)), http.StatusServiceUnavailable,
			fmt.Sprintf("NOT_READY: migrations behind: the service's tables are at version %d, want %d", store.SchemaVersion-1, store.SchemaVersion)},
		{"it answers 503 while the service's tables were never stamped with a version",
			exec(`DROP TABLE clusterplane_schema_version`), http.StatusServiceUnavailable,
			fmt.Sprintf("NOT_READY: migrations behind: the service's tables are at version 0, want %d", store.SchemaVersion)},
		{"it answers 503 while the queue's tables are older than this build's (none, here)",
			func(_ *testing.T, s *api.Server, _ *store.Store) { s.QueueVersion = 7 }, http.StatusServiceUnavailable,
			"NOT_READY: migrations behind: the queue's tables are at version 0, want 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "serve.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.Close)
			s := &api.Server{Store: st, Auth: &auth.Authenticator{Tokens: st.Tokens()}}
			ts := httptest.NewServer(s.Handler())
			t.Cleanup(ts.Close)
			if tc.before != nil {
				tc.before(t, s, st)
			}
			if status, says := askProbe(t, ts.URL, "/readyz"); status != tc.status || says != tc.says {
				t.Errorf("GET /readyz = %d %q, want %d %q", status, says, tc.status, tc.says)
			}
			if status, says := askProbe(t, ts.URL, "/healthz"); status != http.StatusOK || says != "ok\n" {
				t.Errorf("GET /healthz = %d %q, want 200 %q: liveness is the process's own, whatever the database", status, says, "ok\n")
			}
		})
	}
}
