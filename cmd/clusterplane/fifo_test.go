//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
)

// returns runs f and fails the test when it has not returned after a few seconds.
func returns(t *testing.T, f func() result) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("clusterplane did not return: it is reading a named pipe nobody writes")
		return result{}
	}
}

// fleetWithAPipe is fleet(t) with a named pipe nobody writes, fifo.yaml, beside the manifests.
func fleetWithAPipe(t *testing.T) string {
	t.Helper()
	dir := fleet(t)
	path := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	t.Cleanup(func() {
		// A reader still waiting gets end of file, so that its goroutine ends.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	return dir
}

func TestANamedPipeInAFleetFolderIsSkippedByValidateAndStatusNotRead(t *testing.T) {
	t.Run("validate", func(t *testing.T) {
		dir := fleetWithAPipe(t)
		r := returns(t, func() result { return run(t, "", "validate", dir) })
		if line := filepath.Join(dir, "fifo.yaml") + ": skipped, " + files.NotRegularReason + "\n"; r.code != exitcode.OK || !strings.Contains(r.stdout, line) {
			t.Fatalf("exit %d, want 0 with %q\nstdout:\n%s\nstderr:\n%s", r.code, line, r.stdout, r.stderr)
		}
	})
	t.Run("status", func(t *testing.T) {
		dir := fleetWithAPipe(t)
		b := deploytest.New()
		r := returns(t, func() result { return deployRun(t, b, strings.NewReader(""), false, "status", dir) })
		if r.code != exitcode.NotReady || strings.Count(r.stdout, "False (NotDeployed)") != 2 {
			t.Fatalf("exit %d, want 4 (not ready) with both stacks NotDeployed\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// Promise: stack-input-bounds
func TestADeviceNamedOnTheCommandLineIsRefusedNotRead(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	for _, command := range []string{"validate", "plan", "status"} {
		t.Run(command, func(t *testing.T) {
			r := returns(t, func() result {
				return deployRun(t, deploytest.New(), strings.NewReader(""), false, command, "/dev/zero")
			})
			if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "/dev/zero: is not a regular file or a pipe") {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
