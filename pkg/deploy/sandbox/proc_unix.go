//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// detach starts the background sandbox in a session of its own, so that it outlives the
// command that started it and the terminal's interrupts do not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// alive tells whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// terminate asks process pid to stop; the sandbox saves its clouds on the way out.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
