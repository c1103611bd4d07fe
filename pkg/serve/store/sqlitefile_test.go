//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// nobody is the uid the tests give a file "another user" planted; only root may.
const nobody = 65534

// handToNobody makes path another user's, or skips the test when this process may not.
func handToNobody(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("handing a file to another user needs root")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// plant writes a file at path with mode (chmod, so that the umask takes nothing away).
func plant(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// Promise: api-sqlite-file-users-own
func TestServeOpensOnlyAnSQLiteFileNoOneElseMayHavePlanted(t *testing.T) {
	tests := []struct {
		name string
		// make makes what is at file (the database named) before serve opens it, in dir, the
		// folder it is in.
		make func(t *testing.T, dir, file string)
		// refused names what the refusal is of, in dir ("" for the database file itself), and
		// why; "" when the file is opened.
		refusedFile, refused string
	}{
		{name: "a new database is made", make: func(*testing.T, string, string) {}},
		{name: "a database of this user's alone, 0600, is opened", make: func(t *testing.T, _, file string) {
			plant(t, file, 0o600)
		}},
		{name: "a database another user owns is refused", refused: "belongs to another user", make: func(t *testing.T, _, file string) {
			plant(t, file, 0o600)
			handToNobody(t, file)
		}},
		{name: "a database anyone may write is refused", refused: "may be written by its group or others", make: func(t *testing.T, _, file string) {
			plant(t, file, 0o666)
		}},
		{name: "a database its group may write is refused", refused: "may be written by its group or others", make: func(t *testing.T, _, file string) {
			plant(t, file, 0o660)
		}},
		{name: "a link to a database another user owns is refused", refused: "is a symbolic link", make: func(t *testing.T, _, file string) {
			target := filepath.Join(t.TempDir(), "elsewhere.db")
			plant(t, target, 0o600)
			handToNobody(t, target)
			if err := os.Symlink(target, file); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a write-ahead log another user planted beside a new database is refused", refusedFile: "serve.db-wal", refused: "belongs to another user",
			make: func(t *testing.T, _, file string) {
				plant(t, file+"-wal", 0o600)
				handToNobody(t, file+"-wal")
			}},
		{name: "a log index anyone may write is refused", refusedFile: "serve.db-shm", refused: "may be written by its group or others",
			make: func(t *testing.T, _, file string) {
				plant(t, file, 0o600)
				plant(t, file+"-shm", 0o666)
			}},
		{name: "a database in a folder anyone may write in is refused", refusedFile: ".", refused: "may be written by its group or others",
			make: func(t *testing.T, dir, _ string) {
				if err := os.Chmod(dir, 0o777); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a database in a folder another user owns is refused", refusedFile: ".", refused: "belongs to another user",
			make: func(t *testing.T, dir, _ string) { handToNobody(t, dir) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "serve.db")
			tt.make(t, dir, file)
			st, err := store.Open(context.Background(), store.SQLitePrefix+file)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("Open = %v, want the database opened", err)
				}
				defer st.Close()
				// A write, so that SQLite makes its log and index beside the database.
				if _, err := st.DB.ExecContext(context.Background(), `UPDATE clusterplane_counter SET value = value + 1`); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{file, file + "-wal", file + "-shm"} {
					info, err := os.Lstat(f)
					if err != nil {
						t.Fatal(err)
					}
					if info.Mode().Perm() != 0o600 {
						t.Errorf("%s is %v, want 0600: only this user may read or write the service's data", f, info.Mode().Perm())
					}
				}
				return
			}
			if err == nil {
				st.Close()
				t.Fatalf("Open opened %s, want a refusal saying %q", file, tt.refused)
			}
			named := filepath.Join(dir, tt.refusedFile)
			if tt.refusedFile == "" {
				named = file
			}
			wants := []string{named + " ", tt.refused}
			if tt.refused == "belongs to another user" {
				// The way out is another file, named where serve is told which file to use.
				wants = append(wants, "--database-url sqlite:PATH")
			}
			for _, want := range wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not say %q", err, want)
				}
			}
		})
	}
}
