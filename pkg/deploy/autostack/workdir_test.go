package autostack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestAWorkspaceIsAPrivateFolderNamedAfterItsProcessAndTheSweepRemovesOnlyThoseOfEndedOnes(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mine, err := newWorkDir()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(mine)
	if filepath.Dir(root) != tmp {
		t.Fatalf("the workspace %s is not in a folder of its own in TMPDIR %s", mine, tmp)
	}
	for _, dir := range []string{root, mine} {
		if info, err := os.Stat(dir); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a folder only its user reads", dir, info.Mode(), err)
		}
	}
	dead := filepath.Join(root, fmt.Sprintf("%d-123", deadPid(t)))
	parent := filepath.Join(root, fmt.Sprintf("%d-456", os.Getppid()))
	other := filepath.Join(root, "not-a-workspace")
	for _, dir := range []string{dead, parent, other} {
		if err := os.MkdirAll(filepath.Join(dir, "inner"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dead, "Pulumi.dev.yaml"), []byte("encryptionsalt: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepWorkDirs()
	for dir, kept := range map[string]bool{mine: true, parent: true, other: true, dead: false} {
		if _, err := os.Stat(dir); (err == nil) != kept {
			t.Errorf("after the sweep %s exists: %v, want %v", filepath.Base(dir), err == nil, kept)
		}
	}
}

func TestAWorkspacesFolderThatIsALinkIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(tmp, fmt.Sprintf("clusterplane-%d", os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	if dir, err := newWorkDir(); err == nil {
		t.Errorf("a workspace was made through a link, in %s", dir)
	}
}

// Promise: folders-must-be-the-users-own
func TestAWorkspacesFolderOthersMayWriteIsRefusedNotRepaired(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no permission bits for others")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := filepath.Join(tmp, fmt.Sprintf("clusterplane-%d", os.Getuid()))
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	// Chmod, not Mkdir's mode: the umask would take the bits away.
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	// What another user may have put there while it was open is not made private and used.
	if dir, err := newWorkDir(); err == nil || !strings.Contains(err.Error(), "written by its group or others") {
		t.Errorf("newWorkDir = %s, %v, want the open folder refused", dir, err)
	}
}
