package autostack

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/clusterplane/clusterplane/pkg/deploy/autostack/supervisor"
)

// supervised makes cmd, the Pulumi CLI in a process group of its own, start under the supervisor:
// SIGINT to it reaches the CLI, SIGTERM (and clusterplane's death) kills the CLI and everything it
// started. It tells whether it could.
func supervised(cmd *exec.Cmd) bool {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return false
	}
	cmd.Args = append([]string{supervisor.Name, cmd.Path}, cmd.Args[1:]...)
	// Not os.Executable: the link reaches the running binary even when its file was replaced.
	cmd.Path = "/proc/self/exe"
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, supervisor.Env+"="+strconv.Itoa(os.Getpid()))
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Sent when the thread that started it ends: Go ends a thread only when a goroutine locked to
	// it returns, and clusterplane locks none.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return true
}
