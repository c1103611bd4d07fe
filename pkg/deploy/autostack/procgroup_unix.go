//go:build !windows

package autostack

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the CLI in a process group of its own, so a terminal's Ctrl-C reaches
// clusterplane only: Run interrupts the CLI itself, once, and the engine stops cleanly.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
