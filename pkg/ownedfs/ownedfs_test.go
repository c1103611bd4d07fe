package ownedfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// nobody is the uid the tests give a folder "another user" made; only root may.
const nobody = 65534

// asNobody hands path to uid nobody, or skips the test when this process may not.
func asNobody(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" || os.Getuid() != 0 {
		t.Skip("handing a file to another user needs root on a unix system")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// Promise: architecture-owned-files-and-whole-writes
func TestOnlyAFolderOfThisUsersAloneIsTrusted(t *testing.T) {
	tests := []struct {
		name string
		// make makes the thing at path, inside a private folder of the test's.
		make func(t *testing.T, path string)
		// refused is a word the refusal says; "" when the folder is trusted.
		refused string
	}{
		{name: "a private folder this user made is trusted", make: mkdir(0o700)},
		{name: "a folder others may read but not write is trusted", make: mkdir(0o755)},
		{name: "a folder anyone may write is refused", make: mkdir(0o777), refused: "written by its group or others"},
		{name: "a folder its group may write is refused", make: mkdir(0o770), refused: "written by its group or others"},
		{name: "a folder another user made is refused", make: func(t *testing.T, path string) {
			mkdir(0o700)(t, path)
			asNobody(t, path)
		}, refused: fmt.Sprintf("owner uid %d", nobody)},
		{name: "a link to a folder of this user's is refused", make: func(t *testing.T, path string) {
			if err := os.Symlink(t.TempDir(), path); err != nil {
				t.Skip(err)
			}
		}, refused: "symbolic link"},
		{name: "a file in place of the folder is refused", make: func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, refused: "is not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.refused, "written by") && !checksOwner {
				t.Skip("this system's permission bits do not say who may write")
			}
			path := filepath.Join(t.TempDir(), "plugin")
			tt.make(t, path)
			err := Check(path)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("Check = %v, want the folder trusted", err)
				}
				return
			}
			var refusal *NotOwnedError
			if !errors.As(err, &refusal) || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("Check = %v, want a refusal saying %q", err, tt.refused)
			}
			// The refusal names the folder, its owner and its mode, so that the user can see what is wrong.
			for _, want := range []string{path, "owner uid", "mode "} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not say %q", err, want)
				}
			}
		})
	}
}

// Promise: architecture-owned-files-and-whole-writes
func TestOnlyAFileOfThisUsersAloneIsTrusted(t *testing.T) {
	tests := []struct {
		name    string
		make    func(t *testing.T, path string)
		refused string
	}{
		{name: "a private file this user wrote is trusted", make: write(0o600)},
		{name: "a file anyone may write is refused", make: write(0o666), refused: "written by its group or others"},
		{name: "a file another user wrote is refused", make: func(t *testing.T, path string) {
			write(0o600)(t, path)
			asNobody(t, path)
		}, refused: "another user"},
		{name: "a link to a file of this user's is refused", make: func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			write(0o600)(t, target)
			if err := os.Symlink(target, path); err != nil {
				t.Skip(err)
			}
		}, refused: "symbolic link"},
		{name: "a folder in place of the file is refused", make: mkdir(0o700), refused: "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.refused, "written by") && !checksOwner {
				t.Skip("this system's permission bits do not say who may write")
			}
			path := filepath.Join(t.TempDir(), "sandbox.json")
			tt.make(t, path)
			err := CheckFile(path)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("CheckFile = %v, want the file trusted", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("CheckFile = %v, want a refusal saying %q", err, tt.refused)
			}
		})
	}
}

func TestMkdirAllRefusesAnyFolderOfThePathThatSomeoneElseMadeFirst(t *testing.T) {
	tests := []struct {
		name string
		// planted is the folder, among clusterplane/plugin/0, another user made first; "" for none.
		planted string
		mode    os.FileMode
		refused bool
	}{
		{name: "a path nobody made before is made private", refused: false},
		{name: "the outermost folder made by another user is refused", planted: "clusterplane", mode: 0o755, refused: true},
		{name: "the middle folder made by another user is refused", planted: "clusterplane/plugin", mode: 0o755, refused: true},
		{name: "the innermost folder made by another user is refused", planted: "clusterplane/plugin/0", mode: 0o700, refused: true},
		{name: "the middle folder left open to anyone is refused", planted: "clusterplane/plugin", mode: 0o777, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.planted != "" && !checksOwner {
				t.Skip("this system has no owners or permission bits to plant a folder with")
			}
			shared := t.TempDir()
			if tt.planted != "" {
				planted := filepath.Join(shared, filepath.FromSlash(tt.planted))
				if err := os.MkdirAll(planted, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(planted, tt.mode); err != nil {
					t.Fatal(err)
				}
				if tt.mode&0o022 == 0 {
					asNobody(t, planted)
				}
			}
			dir, err := MkdirAll(shared, "clusterplane", "plugin", "0")
			if tt.refused {
				if err == nil {
					t.Fatalf("MkdirAll made %s through a folder someone else made", dir)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for d := dir; d != shared; d = filepath.Dir(d) {
				if info, err := os.Lstat(d); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o700 {
					t.Errorf("%s: %v %v, want a folder only its user reads", d, info.Mode(), err)
				}
			}
		})
	}
}

func TestMkdirAllTakesOnlyFolderNames(t *testing.T) {
	for _, elem := range []string{"", ".", "..", "a/b"} {
		if _, err := MkdirAll(t.TempDir(), elem); err == nil {
			t.Errorf("MkdirAll accepted %q as a folder's name", elem)
		}
	}
}

func mkdir(mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		// Chmod, not Mkdir's mode: the umask would take the bits the test needs away.
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func write(mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
}
