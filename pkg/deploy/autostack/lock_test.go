package autostack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

func TestAFileBackendsStackIsLockedWhileALockFileIsThere(t *testing.T) {
	root := t.TempDir()
	s := &stackOf{backend: &Backend{url: "file://" + root}, project: "p", stack: "s"}
	if locked, known, err := s.Locked(context.Background()); locked || !known || err != nil {
		t.Fatalf("no lock: Locked = %t, %t, %v", locked, known, err)
	}
	dir := filepath.Join(root, ".pulumi", "locks", "organization", "p", "s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "held.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if locked, known, err := s.Locked(context.Background()); !locked || !known || err != nil {
		t.Errorf("a lock file: Locked = %t, %t, %v", locked, known, err)
	}
	other := &stackOf{backend: &Backend{url: "s3://bucket/state"}, project: "p", stack: "s"}
	if _, known, _ := other.Locked(context.Background()); known {
		t.Error("an S3 backend's lock read as known")
	}
}

func TestAPostgreSQLBackendsStackIsLockedWhileALockRowIsThere(t *testing.T) {
	server := pgtest.Start(t)
	url := server.Database("locks")
	b := &Backend{url: url}
	if err := b.prepareTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, _, err := openPostgres(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	// Rows as the CLI writes them: the key after the database's name, the blob base64 in "data".
	lock := func(key string) {
		t.Helper()
		if _, err := db.Exec(`INSERT INTO pulumi_state (key, data) VALUES ($1, '{"data": "e30="}')`, "locks/"+key); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		lock   string // a row added before asking; "" adds none
		stack  string
		locked bool
	}{
		{name: "a stack without a lock row is known to be free", stack: "s"},
		{name: "another stack's lock row does not lock this one", lock: ".pulumi/locks/organization/p/other/a.json", stack: "s"},
		{name: "a lock row under the stack's folder locks it", lock: ".pulumi/locks/organization/p/s/b.json", stack: "s", locked: true},
		{name: "a stack whose name begins another's is not locked by it", stack: "s2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.lock != "" {
				lock(tt.lock)
			}
			s := &stackOf{backend: b, project: "p", stack: tt.stack}
			locked, known, err := s.Locked(context.Background())
			if locked != tt.locked || !known || err != nil {
				t.Errorf("Locked = %t, %t, %v; want %t, known", locked, known, err, tt.locked)
			}
		})
	}
	gone := &stackOf{backend: &Backend{url: strings.Replace(url, "/locks", "/gone", 1)}, project: "p", stack: "s"}
	if _, known, err := gone.Locked(context.Background()); known || err == nil {
		t.Errorf("a database that is not there: known %t, %v; want unknown and the error", known, err)
	}
}
