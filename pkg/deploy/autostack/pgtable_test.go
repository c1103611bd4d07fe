package autostack

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

func TestProcessesOpeningAFreshPostgreSQLBackendTogetherAllFindItsTable(t *testing.T) {
	server := pgtest.Start(t)
	tests := []struct {
		name, query, table string
	}{
		{"the default table", "", "pulumi_state"},
		{"a table the URL names", "&table=Team_State", "team_state"}, // unquoted, as the CLI writes it
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A database nothing was deployed to, opened at once by as many processes as a fleet
			// runs stacks (a Backend each, as each process has its own), a few times over: the
			// race of two CREATE TABLE IF NOT EXISTS is narrow.
			for round := range 4 {
				url := server.Database(fmt.Sprintf("fresh%d_%d", i, round)) + tt.query
				var wg sync.WaitGroup
				errs := make([]error, 12)
				for j := range errs {
					wg.Go(func() { errs[j] = (&Backend{url: url}).prepareTable(context.Background()) })
				}
				wg.Wait()
				for j, err := range errs {
					if err != nil {
						t.Fatalf("round %d, process %d: %v", round, j, err)
					}
				}
				db, _, err := openPostgres(url)
				if err != nil {
					t.Fatal(err)
				}
				var columns string
				err = db.QueryRow(`SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)
					FROM information_schema.columns WHERE table_name = $1`, tt.table).Scan(&columns)
				_ = db.Close()
				if err != nil || columns != "key text, data json, updated_at timestamp with time zone" {
					t.Fatalf("round %d: the table %s has %q (%v), want the CLI's columns", round, tt.table, columns, err)
				}
			}
		})
	}
}

func TestAPostgreSQLBackendsTableIsMadeOnceAProcessAndNotAtAllForOtherBackends(t *testing.T) {
	server := pgtest.Start(t)
	url := server.Database("once")
	b := &Backend{url: url}
	if err := b.prepareTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Once made, the process does not ask again: a database gone meanwhile is not touched.
	server.Run("dropdb", "-h", "127.0.0.1", "-p", fmt.Sprint(server.Port()), "-U", "clusterplane", "once")
	if err := b.prepareTable(context.Background()); err != nil {
		t.Errorf("a second open: %v, want nothing asked", err)
	}
	// A fresh process on the gone database is told, without the URL's password.
	withPassword := strings.Replace(url, "clusterplane@", "clusterplane:hunter2-secret@", 1)
	err := (&Backend{url: withPassword}).prepareTable(context.Background())
	if err == nil || !strings.Contains(err.Error(), "make the PostgreSQL backend's table in postgres://clusterplane:[redacted]@") ||
		strings.Contains(err.Error(), "hunter2-secret") {
		t.Errorf("a gone database: %v, want told, naming the backend without its password", err)
	}
	for _, other := range []string{"file:///nowhere", "s3://bucket", "https://api.pulumi.com"} {
		if err := (&Backend{url: other}).prepareTable(context.Background()); err != nil {
			t.Errorf("%s: %v, want nothing to make", other, err)
		}
	}
}

func TestATableTheURLNamesInCapitalsIsReadWhereTheCLIKeepsIt(t *testing.T) {
	server := pgtest.Start(t)
	url := server.Database("capitals") + "&table=Team_State"
	if err := (&Backend{url: url}).prepareTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A row as the CLI writes it, into the table its unquoted name makes: team_state.
	db, _, err := openPostgres(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if _, err := db.Exec(`INSERT INTO team_state (key, data) VALUES ('capitals/.pulumi/meta.yaml', '{"data": "dmVyc2lvbjogMQ=="}')`); err != nil {
		t.Fatal(err)
	}
	store, err := openTable(url)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.read(context.Background(), ".pulumi/meta.yaml")
	if err != nil || string(got) != "version: 1" {
		t.Errorf("read = %q, %v; want the CLI's row", got, err)
	}
}

func TestAUserWhoMayNotCreateWhereTheCLIMakesItsTableIsToldTheGrantThatMendsIt(t *testing.T) {
	server := pgtest.Start(t)
	owner := server.Database("team")
	db, _, err := openPostgres(owner)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	// The owner makes the table and lets teamuser use it, but not create in the schema (PostgreSQL
	// 15's default for public, said outright for older servers).
	for _, stmt := range []string{
		"CREATE ROLE teamuser LOGIN",
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"CREATE TABLE pulumi_state (key TEXT PRIMARY KEY, data JSON NOT NULL, updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON pulumi_state TO teamuser",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	team := strings.Replace(owner, "clusterplane@", "teamuser@", 1)
	err = (&Backend{url: team}).prepareTable(context.Background())
	if err == nil || !strings.Contains(err.Error(), "GRANT CREATE ON SCHEMA public TO teamuser") {
		t.Fatalf("a user who may not create in public: %v, want told the grant", err)
	}
	if _, err := db.Exec("GRANT CREATE ON SCHEMA public TO teamuser"); err != nil {
		t.Fatal(err)
	}
	if err := (&Backend{url: team}).prepareTable(context.Background()); err != nil {
		t.Errorf("after the grant: %v, want the table found", err)
	}
}
