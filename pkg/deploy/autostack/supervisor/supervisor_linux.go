package supervisor

import (
	"bytes"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Env marks the supervisor's environment; its value is the pid of the clusterplane that
// started it, so that a variable left in a user's environment starts no supervisor.
const Env = "CLUSTERPLANE_SUPERVISE_PULUMI"

// Name is the supervisor's argv[0], what ps shows.
const Name = "clusterplane-supervisor"

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h), written here rather than
// taken from golang.org/x/sys/unix so that this package imports the standard library alone (doc.go
// says why).
const prSetChildSubreaper = 36

// The supervisor takes over before clusterplane's main or a test binary's tests run, and before the
// packages that import this one run their init: whatever binary runs the CLI links this package.
func init() {
	if v := os.Getenv(Env); v != "" && v == strconv.Itoa(os.Getppid()) {
		os.Exit(supervise(os.Args[1:]))
	}
}

// supervise runs the CLI, args[0] with args, and returns the exit code to end with: the CLI's.
func supervise(args []string) int {
	if len(args) == 0 {
		os.Stderr.WriteString(Name + ": no command to run\n")
		return 2
	}
	// The CLI's parent-death signal, like ours, follows the thread that started it: this one, locked
	// to the main goroutine, lives as long as the process.
	runtime.LockOSThread()
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGCHLD)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		// Still the CLI's parent: only the plugins of a CLI that ends first escape.
		os.Stderr.WriteString(Name + ": become the plugins' reaper: " + errno.Error() + "\n")
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, Env+"=") {
			env = append(env, kv)
		}
	}
	pid, err := syscall.ForkExec(args[0], args, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		os.Stderr.WriteString(Name + ": start " + args[0] + ": " + err.Error() + "\n")
		return 127
	}
	s := &supervisor{cli: pid}
	for !s.exited {
		s.reap()
		if s.exited {
			break
		}
		switch <-signals {
		case syscall.SIGINT:
			// The CLI is not reaped yet (only this goroutine reaps): pid is still the CLI's.
			_ = syscall.Kill(pid, syscall.SIGINT)
		case syscall.SIGTERM, syscall.SIGHUP:
			s.killAll()
		}
	}
	s.killAll()
	return exitCode(s.status)
}

// supervisor is the state of supervise: the CLI's pid and, once it has ended, how.
type supervisor struct {
	cli    int
	exited bool
	status syscall.WaitStatus
}

// reap reaps every child that has ended, noting the CLI's status; it tells whether any child is
// left.
func (s *supervisor) reap() (children bool) {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return false
		case pid <= 0:
			return true
		case pid == s.cli:
			s.exited, s.status = true, status
		}
	}
}

// killAll kills every descendant with SIGKILL and reaps them: the children first, then the
// orphans of the ones killed, which the kernel gives to this process, the subreaper, until none
// is left (or ten seconds have passed).
func (s *supervisor) killAll() {
	for deadline := time.Now().Add(10 * time.Second); s.reap() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, pid := range childrenOf(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// childrenOf are the processes whose parent is pid, as /proc says.
func childrenOf(parent int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// /proc/PID/stat: pid (comm) state ppid ...; comm may hold spaces and parentheses.
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			out = append(out, pid)
		}
	}
	return out
}

// exitCode ends the supervisor as the CLI ended: with its exit code, or killed by the signal that
// killed it (which is what clusterplane reads from a CLI killed at the end of a timeout).
func exitCode(status syscall.WaitStatus) int {
	if !status.Signaled() {
		return status.ExitStatus()
	}
	signal.Reset()
	_ = syscall.Kill(os.Getpid(), status.Signal())
	time.Sleep(time.Second)
	return 128 + int(status.Signal())
}
