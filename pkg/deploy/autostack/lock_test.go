package autostack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// The locks of a stack are removed as a killed process's only when every one says it was taken
// by a process of this machine that no longer runs: a lock of another machine, of a process still
// running, or one that does not say, may still hold something back, and every lock stays.
//
// Promise: dead-lock-removed-by-the-next-run
func TestALockIsRemovedOnlyWhenItsProcessIsOfThisMachineAndNoLongerRuns(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip("this machine has no name to compare a lock's with")
	}
	// gone is the id of a process that ran and ended.
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	gone := ended.ProcessState.Pid()
	lock := func(pid int, hostname string) string {
		return fmt.Sprintf(`{"pid":%d,"username":"u","hostname":%q,"timestamp":"2026-11-30T08:00:00Z"}`, pid, hostname)
	}
	rows := []struct {
		name  string
		locks []string
		want  string
	}{
		{name: "no lock", want: ""},
		{name: "the lock of a process of this machine that ended", locks: []string{lock(gone, host)},
			want: fmt.Sprintf("process %d of %s", gone, host)},
		{name: "the lock of a process still running", locks: []string{lock(os.Getpid(), host)}},
		{name: "the lock of another machine's process", locks: []string{lock(gone, host+"-other")}},
		{name: "a dead process's lock beside a running one's", locks: []string{lock(gone, host), lock(os.Getpid(), host)}},
		{name: "a lock that does not say whose it is", locks: []string{`{}`}},
	}
	for _, tt := range stateBackends() {
		t.Run(tt.name, func(t *testing.T) {
			b, put := tt.backend(t)
			put(".pulumi/meta.yaml", meta)
			for i, row := range rows {
				t.Run(row.name, func(t *testing.T) {
					stack := fmt.Sprintf("locked%d", i)
					for j, l := range row.locks {
						put(fmt.Sprintf(".pulumi/locks/organization/p/%s/%d.json", stack, j), l)
					}
					s := b.stackOf("p", stack, nil)
					got, err := s.RemoveDeadLocks(context.Background())
					if err != nil || got != row.want {
						t.Errorf("RemoveDeadLocks = %q, %v; want %q", got, err, row.want)
					}
					locked, _, err := s.Locked(context.Background())
					if want := row.want == "" && len(row.locks) > 0; err != nil || locked != want {
						t.Errorf("the stack is locked: %v (%v), want %v", locked, err, want)
					}
				})
			}
		})
	}
}
