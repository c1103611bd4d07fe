package autostack

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
	other := &stackOf{backend: &Backend{url: "postgres://db/state"}, project: "p", stack: "s"}
	if _, known, _ := other.Locked(context.Background()); known {
		t.Error("a PostgreSQL backend's lock read as known")
	}
}
