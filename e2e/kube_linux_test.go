//go:build e2e && linux

package e2e_test

import (
	"os/exec"
	"syscall"
)

// procattr has the kernel kill a control-plane process when the test binary dies (a timeout's
// panic, a kill): no etcd or API server outlives the test, whichever way it ends. Each runs in a
// process group of its own, which killGroup stops whole.
func procattr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// killGroup kills the process and every process of its group.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
