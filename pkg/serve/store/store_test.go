package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// onEachDatabase runs f on a fresh store of each database: an SQLite file, and a throwaway
// PostgreSQL server (skipped where it is not installed, failed where pgtest.RequireEnv is set).
// Every write's reconcile is counted instead of queued.
func onEachDatabase(t *testing.T, f func(t *testing.T, st *store.Store, enqueued *int)) {
	databases := []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"on SQLite", func(t *testing.T) string { return store.SQLitePrefix + filepath.Join(t.TempDir(), "serve.db") }},
		{"on PostgreSQL", func(t *testing.T) string { return pgtest.Start(t).Database("store") }},
	}
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), db.url(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.Close)
			var enqueued int
			st.Enqueue = func(context.Context, *sql.Tx, string) error { enqueued++; return nil }
			f(t, st, &enqueued)
		})
	}
}

func TestAWriteWhoseReconcileCannotBeQueuedIsNotSaved(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "a", Spec: json.RawMessage(`{"n": 1}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		full := errors.New("the queue is full")
		st.Enqueue = func(context.Context, *sql.Tx, string) error { return full }
		writes := []struct {
			name  string
			write func() error
		}{
			{"an update", func() error {
				_, err := st.Objects().Update(ctx, store.Cluster, o.ID, o.ResourceVersion, store.Change{Name: "a", Spec: json.RawMessage(`{"n": 2}`)})
				return err
			}},
			{"a delete", func() error {
				_, err := st.Objects().Delete(ctx, store.Cluster, o.ID, o.ResourceVersion, nil)
				return err
			}},
			{"a create", func() error {
				_, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "b", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
				return err
			}},
		}
		for _, w := range writes {
			if err := w.write(); !errors.Is(err, full) {
				t.Errorf("%s = %v, want the queue's error", w.name, err)
			}
		}
		now, err := st.Objects().Get(ctx, store.Cluster, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if now.Deleting || now.ResourceVersion != o.ResourceVersion || now.Generation != 1 {
			t.Errorf("after the failed writes the object is %+v, want it as it was", now)
		}
		if page, err := st.Objects().List(ctx, store.Filter{Type: store.Cluster, Limit: 10}); err != nil || page.Total != 1 {
			t.Errorf("after a failed create there are %d clusters (%v), want 1", page.Total, err)
		}
	})
}

func TestAnObjectIsForgottenOnlyOnceItIsBeingDeleted(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "a", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Objects().Forget(ctx, o.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Objects().Get(ctx, store.Cluster, o.ID); err != nil {
			t.Fatalf("an object not being deleted was forgotten: %v", err)
		}
		if _, err := st.Objects().Delete(ctx, store.Cluster, o.ID, store.AnyVersion, nil); err != nil {
			t.Fatal(err)
		}
		if err := st.Objects().Forget(ctx, o.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Objects().Get(ctx, store.Cluster, o.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a deleted object's Get after Forget = %v, want ErrNotFound", err)
		}
	})
}

func TestAConditionKeepsTheTimeItLastChanged(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "a", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		report := func(ready, progressing string) map[string]time.Time {
			t.Helper()
			if err := st.Statuses().Put(ctx, store.Cluster, o.ID, store.ControllerStatus{ControllerName: "clusterplane", ObservedGeneration: 1,
				Conditions: []store.Condition{{Type: "Ready", Status: ready}, {Type: "Progressing", Status: progressing}}}); err != nil {
				t.Fatal(err)
			}
			sts, err := st.Statuses().List(ctx, store.Cluster, o.ID)
			if err != nil || len(sts) != 1 {
				t.Fatalf("Statuses = %v, %v", sts, err)
			}
			at := map[string]time.Time{}
			for _, c := range sts[0].Conditions {
				at[c.Type] = c.LastTransitionTime
			}
			return at
		}
		first := report("False", "True")
		time.Sleep(1100 * time.Millisecond) // transition times are whole seconds
		second := report("False", "False")
		if !second["Ready"].Equal(first["Ready"]) {
			t.Errorf("Ready stayed False, yet its time moved from %s to %s", first["Ready"], second["Ready"])
		}
		if !second["Progressing"].After(first["Progressing"]) {
			t.Errorf("Progressing went from True to False, yet its time stayed %s", second["Progressing"])
		}
	})
}

// A database made before tokens named their controller gains the column, and its controller
// tokens read back with no controller: they report no status until replaced.
func TestATokenTableFromBeforeControllerNamesIsMigrated(t *testing.T) {
	databases := []struct {
		name, driver string
		url          func(t *testing.T) (storeURL, sqlURL string)
		hash         string
	}{
		{"on SQLite", "sqlite", func(t *testing.T) (string, string) {
			path := filepath.Join(t.TempDir(), "serve.db")
			return store.SQLitePrefix + path, "file:" + filepath.ToSlash(path)
		}, "blob"},
		{"on PostgreSQL", "pgx", func(t *testing.T) (string, string) {
			url := pgtest.Start(t).Database("store")
			return url, url
		}, "bytea"},
	}
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			ctx := context.Background()
			storeURL, sqlURL := db.url(t)
			old, err := sql.Open(db.driver, sqlURL)
			if err != nil {
				t.Fatal(err)
			}
			// The table as it was, with a controller token in it.
			if _, err := old.ExecContext(ctx, `CREATE TABLE clusterplane_tokens (id text PRIMARY KEY, name text NOT NULL,
				role text NOT NULL, hash `+db.hash+` NOT NULL, created_at timestamp NOT NULL, revoked_at timestamp)`); err != nil {
				t.Fatal(err)
			}
			if _, err := old.ExecContext(ctx, `INSERT INTO clusterplane_tokens (id, name, role, hash, created_at) VALUES ('0123456789abcdef', 'probe', 'controller', $1, $2)`,
				[]byte("not a real hash"), time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
			old.Close()
			st, err := store.Open(ctx, storeURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			rec, err := st.Tokens().TokenByID(ctx, "0123456789abcdef")
			if err != nil || rec.Role != "controller" || rec.Controller != "" {
				t.Fatalf("the old token reads as %+v, %v; want a controller token with no controller", rec, err)
			}
			_, made, err := auth.NewControllerToken("gpu", "gpu-probe")
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Tokens().AddToken(ctx, made); err != nil {
				t.Fatal(err)
			}
			if rec, err := st.Tokens().TokenByID(ctx, made.ID); err != nil || rec.Controller != "gpu-probe" {
				t.Errorf("a token made after reads as %+v, %v; want its controller gpu-probe", rec, err)
			}
			if tokens, err := st.Tokens().List(ctx); err != nil || len(tokens) != 2 || tokens[1].Controller != "gpu-probe" {
				t.Errorf("listed %+v, %v", tokens, err)
			}
		})
	}
}

func TestAListsPageAndTotalFollowItsFilters(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		var clusters []string
		for _, name := range []string{"a", "b"} {
			c, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: name, Spec: json.RawMessage(`{}`), CreatedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			clusters = append(clusters, c.ID)
		}
		// Cluster a has 6 pools, b has 4: 10 in all, their names in the order they were made.
		for i := range 10 {
			cluster := clusters[0]
			if i >= 6 {
				cluster = clusters[1]
			}
			if _, err := st.Objects().Create(ctx, store.Object{Type: store.NodePool, Name: fmt.Sprintf("p%d", i), ClusterID: cluster,
				Spec: json.RawMessage(`{}`), CreatedBy: "test"}); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name      string
			filter    store.Filter
			wantNames []string
			wantTotal int
		}{
			{"the first page of all pools", store.Filter{Limit: 3}, []string{"p0", "p1", "p2"}, 10},
			{"a later page of all pools", store.Filter{Limit: 3, Offset: 8}, []string{"p8", "p9"}, 10},
			{"a page past the end still counts them all", store.Filter{Limit: 3, Offset: 20}, nil, 10},
			{"one cluster's pools", store.Filter{ClusterID: clusters[1], Limit: 10}, []string{"p6", "p7", "p8", "p9"}, 4},
			{"one cluster's page past its end", store.Filter{ClusterID: clusters[1], Limit: 10, Offset: 4}, nil, 4},
			{"a status no pool has", store.Filter{Phase: "Ready", Limit: 10}, nil, 0},
			{"the status and health every pool has", store.Filter{Phase: "Pending", Health: "Unknown", Limit: 2}, []string{"p0", "p1"}, 10},
			{"a cluster id that is no uuid", store.Filter{ClusterID: "nope", Limit: 10}, nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := tt.filter
				f.Type = store.NodePool
				page, err := st.Objects().List(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, o := range page.Objects {
					names = append(names, o.Name)
				}
				if !slices.Equal(names, tt.wantNames) || page.Total != tt.wantTotal {
					t.Errorf("got %v of %d, want %v of %d", names, page.Total, tt.wantNames, tt.wantTotal)
				}
			})
		}
	})
}

// Pages read by place (keyset paging) hold every object once, in the list's order, however
// objects are created and deleted while they are read: an object made during the walk comes on
// a later page, and one deleted before the place shifts nothing after it.
// Promise: api-cursor-pages-every-object-once
func TestPagesReadByPlaceHoldEveryObjectOnceWhileTheTableChanges(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		c, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "a", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		create := func(name string) store.Object {
			o, err := st.Objects().Create(ctx, store.Object{Type: store.NodePool, Name: name, ClusterID: c.ID, Spec: json.RawMessage(`{}`), CreatedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		var made []store.Object
		for i := range 8 {
			made = append(made, create(fmt.Sprintf("p%d", i)))
		}
		var names []string
		var totals []int
		f := store.Filter{Type: store.NodePool, ClusterID: c.ID, Limit: 3}
		for page := 0; ; page++ {
			got, err := st.Objects().List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range got.Objects {
				names = append(names, o.Name)
			}
			totals = append(totals, got.Total)
			if page == 0 {
				// Before the place: p0 goes (an offset would now skip p3); after it: p8 comes.
				if _, err := st.Objects().Delete(ctx, store.NodePool, made[0].ID, store.AnyVersion, nil); err != nil {
					t.Fatal(err)
				}
				if err := st.Objects().Forget(ctx, made[0].ID); err != nil {
					t.Fatal(err)
				}
				create("p8")
			}
			if got.Next == nil {
				break
			}
			if page > 5 {
				t.Fatalf("more pages than objects: %v", names)
			}
			f.After = got.Next
		}
		if want := "[p0 p1 p2 p3 p4 p5 p6 p7 p8]"; fmt.Sprint(names) != want {
			t.Errorf("walked %v, want %s", names, want)
		}
		if fmt.Sprint(totals) != "[8 8 8]" {
			t.Errorf("totals %v, want [8 8 8] (three pages, the last full and said to be the last): every page counts what the filter selects then", totals)
		}
		f.After = &store.Place{CreatedAt: time.Now().Add(time.Hour), ID: c.ID}
		if past, err := st.Objects().List(ctx, f); err != nil || len(past.Objects) != 0 || past.Total != 8 || past.Next != nil {
			t.Errorf("a place past the end: %+v, %v; want no objects, total 8, no next", past, err)
		}
	})
}
