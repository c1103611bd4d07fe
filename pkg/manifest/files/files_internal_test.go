//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// A file found in a directory is checked once more as it is opened: between the walk and the
// read its name may have come to be a named pipe, and the read must not block on it.
// Promise: stack-input-bounds
func TestAFileFoundInAFolderIsReadOnlyWhenItIsARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("a: "+strings.Repeat("x", stackinput.MaxBytes)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{fifo, fifo + ": is not a regular file"},
		{big, big + ": is larger than 4 MiB"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, _, err := Reader{}.One(Input{File: tt.file})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("want an error with %q, got %v", tt.want, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read did not return")
			}
		})
	}
}
