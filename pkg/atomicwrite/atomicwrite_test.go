package atomicwrite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
)

// Promise: report-file-written-whole
// Promise: architecture-owned-files-and-whole-writes
func TestAFileIsReplacedWholeAndALinkAtItsNameIsNeverFollowed(t *testing.T) {
	tests := []struct {
		name string
		// before makes what is at the path before the write; it returns a file that must not change.
		before func(t *testing.T, dir, path string) string
	}{
		{"nothing there", func(*testing.T, string, string) string { return "" }},
		{"a file there", func(t *testing.T, _, path string) string {
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{"a link to another file there", func(t *testing.T, dir, path string) string {
			other := filepath.Join(dir, "other")
			if err := os.WriteFile(other, []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, path); err != nil {
				t.Fatal(err)
			}
			return other
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "plan.json")
			untouched := tt.before(t, dir, path)
			if err := atomicwrite.File(path, []byte("new")); err != nil {
				t.Fatal(err)
			}
			info, err := os.Lstat(path)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 {
				t.Fatalf("the path is not a regular 0644 file: %v, %v", info, err)
			}
			if data, _ := os.ReadFile(path); string(data) != "new" {
				t.Errorf("the file holds %q", data)
			}
			if untouched != "" {
				if data, _ := os.ReadFile(untouched); string(data) != "keep" {
					t.Errorf("the link was followed: %s holds %q", untouched, data)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != map[bool]int{true: 2, false: 1}[untouched != ""] {
				t.Errorf("a temporary file was left: %v", entries)
			}
		})
	}
}

func TestAFileIsReadableByAllAndAPrivateOneByItsOwnerOnly(t *testing.T) {
	tests := []struct {
		name  string
		write func(path string, data []byte) error
		want  os.FileMode
	}{
		{"a file meant to be committed is 0644", atomicwrite.File, 0o644},
		{"a secret is 0600", atomicwrite.Private, 0o600},
		{"a new secret file is 0600", atomicwrite.NewPrivate, 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			if err := tt.write(path, []byte("x")); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tt.want {
				t.Errorf("mode %v, want %v", got, tt.want)
			}
		})
	}
}

func TestANewPrivateFileIsNeverWrittenOverWhatIsAlreadyThere(t *testing.T) {
	dir := t.TempDir()
	existing, link := filepath.Join(dir, "existing"), filepath.Join(dir, "link")
	if err := os.WriteFile(existing, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{existing, link} {
		if err := atomicwrite.NewPrivate(path, []byte("secret")); err == nil {
			t.Errorf("NewPrivate(%s) wrote over what was there", filepath.Base(path))
		}
	}
	if data, _ := os.ReadFile(existing); string(data) != "theirs" {
		t.Errorf("the existing file holds %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); !os.IsNotExist(err) {
		t.Errorf("the link was followed: %v", err)
	}
}

// A file asked for in a folder that does not exist is an error naming that path, never the
// temporary file written first.
func TestAFileInAFolderThatDoesNotExistIsAnErrorNamingThePathAskedFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "kubeconfig")
	for name, write := range map[string]func(string, []byte) error{"File": atomicwrite.File, "Private": atomicwrite.Private} {
		err := write(path, []byte("data"))
		if err == nil || err.Error() != "write "+path+": no such file or directory" || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s into a missing folder: %v, want the path asked for and why", name, err)
		}
	}
}
