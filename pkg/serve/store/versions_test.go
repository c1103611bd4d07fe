package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// GET /readyz compares the tables' version with SchemaVersion: opening records it, and a newer
// one (a newer replica's, on the same database) is kept by an older replica's opening.
func TestOpeningRecordsTheTablesVersionAndKeepsANewerOne(t *testing.T) {
	ctx := context.Background()
	for _, db := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"on SQLite", func(t *testing.T) string { return store.SQLitePrefix + filepath.Join(t.TempDir(), "serve.db") }},
		{"on PostgreSQL", func(t *testing.T) string { return pgtest.Start(t).Database("store") }},
	} {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			versions := func(then func(st *store.Store)) store.Versions {
				t.Helper()
				st, err := store.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				v, err := st.Versions(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if then != nil {
					then(st)
				}
				return v
			}
			if v := versions(func(st *store.Store) {
				if _, err := st.DB.ExecContext(ctx, `UPDATE clusterplane_schema_version SET version = version + 5`); err != nil {
					t.Fatal(err)
				}
			}); v != (store.Versions{Tables: store.SchemaVersion}) {
				t.Errorf("a new database's versions = %+v, want the tables at %d and no queue (River's, which serve migrates)", v, store.SchemaVersion)
			}
			if v := versions(nil); v.Tables != store.SchemaVersion+5 {
				t.Errorf("reopened after a newer replica recorded %d, the tables are at %d", store.SchemaVersion+5, v.Tables)
			}
		})
	}
}
