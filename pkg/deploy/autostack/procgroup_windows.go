package autostack

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the CLI in a process group of its own, so a console's Ctrl-C reaches
// clusterplane only. Windows cannot send a process an interrupt, so a cancelled Run kills the CLI.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
