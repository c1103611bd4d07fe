//go:build !windows

package autostack

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the CLI in a session of its own, which is also a process group of its
// own: a terminal's Ctrl-C reaches clusterplane only (Run interrupts the CLI itself, once, and the
// engine stops cleanly), and the CLI and the plugins it starts have no controlling terminal. A
// program that asks the terminal something (its background colour, where the cursor is) opens
// /dev/tty and reads the answer from it; one that did so under clusterplane's question took the
// answer a person had typed ahead, and the question then waited for ever.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
