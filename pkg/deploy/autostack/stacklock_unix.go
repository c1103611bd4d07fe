//go:build unix

package autostack

import (
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pkg/errors"
)

// lockFile takes an exclusive flock of the stack's lock file, without waiting. The file stays
// when the lock ends: removing it would let a process that opened it before the removal and one
// that creates it anew both hold "the" lock. It holds the holder's words, for the message of the
// one turned away.
func lockFile(root, project, stack string) (func(), error) {
	path := lockFilePath(root, project, stack)
	// Readable by the team that shares the backend folder (as Pulumi's own locks are): a lock is
	// only taken, never run, and flock needs no write access to the file.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, errors.Wrap(err, "create the folder of the stack's lock")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, os.ErrPermission) {
		// Another member of the team made it: locked through a read-only handle, the holder's
		// words left as they are.
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	}
	if err != nil {
		return nil, errors.Wrap(err, "open the stack's lock")
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			words, _ := io.ReadAll(io.LimitReader(f, 200))
			return nil, &stackstate.StackBusyError{Holder: strings.TrimSpace(string(words))}
		}
		return nil, errors.Wrap(err, "lock the stack")
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holder()+"\n"), 0)
	}
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
