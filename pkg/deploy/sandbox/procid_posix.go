//go:build linux || darwin

package sandbox

import (
	"os"

	"github.com/pkg/errors"
)

// sandboxProcess refuses pid unless it is this user's `clusterplane sandbox serve` of dir: the
// process sandbox.json names is signalled by stop, and a stale file (its process ended, the id
// taken by another) or a crafted one must never have another process signalled. The error says
// why in words of its own, never the process's command line (it may hold another program's
// secrets).
func sandboxProcess(pid int, dir string) error {
	p, err := readProcess(pid)
	if err != nil {
		return err
	}
	if p.uid != os.Getuid() {
		return errors.Errorf("it runs as uid %d, not as this user (uid %d)", p.uid, os.Getuid())
	}
	served, ok := servedDir(p)
	if !ok {
		return errors.New("it runs another command")
	}
	if !sameFolder(served, dir) {
		return errors.Errorf("it serves the sandbox in %s", served)
	}
	return nil
}
