//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
)

// mkfifo makes a named pipe nobody writes: reading it blocks until the test ends, when a writer
// opens and closes it so that a reader still waiting gets end of file.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
}

// within runs f and fails the test when it has not returned after a few seconds.
func within(t *testing.T, f func() result) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not return: it is reading a named pipe nobody writes")
		return result{}
	}
}

func TestValidateOfAFolderSkipsANamedPipeOrADeviceRatherThanReadingIt(t *testing.T) {
	data, err := os.ReadFile(minimal)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cluster.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	mkfifo(t, fifo)
	links := map[string]string{"to-fifo.yaml": fifo, "to-zero.yml": "/dev/zero"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := within(t, func() result { return run("validate", dir) })
	if r.code != exitcode.OK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"fifo.yaml", "to-fifo.yaml", "to-zero.yml"} {
		if line := filepath.Join(dir, name) + ": skipped, " + files.NotRegularReason + "\n"; !strings.Contains(r.stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.stdout)
		}
	}
	if !strings.HasSuffix(r.stdout, "1 valid, 0 invalid, 3 skipped\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestAFileNamedExplicitlyThatIsADeviceIsRefusedNotRead(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	r := within(t, func() result { return run("validate", "/dev/zero") })
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "/dev/zero: is not a regular file or a pipe") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
