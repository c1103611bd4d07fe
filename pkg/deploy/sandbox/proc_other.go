//go:build !unix

package sandbox

import (
	"os"
	"os/exec"

	"github.com/pkg/errors"
)

// detach leaves the command as it is: Windows has no sessions to leave.
func detach(*exec.Cmd) {}

// alive tells whether process pid exists.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}

// terminate stops process pid. Windows has no SIGTERM: the process is killed, and what its clouds
// answered is already saved (they save after every change).
func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Wrap(err, "find the sandbox's process")
	}
	return p.Kill()
}
