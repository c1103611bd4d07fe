// Package childproc runs a command as clusterplane's child, the way `clusterplane sandbox -- CMD`
// and `clusterplane kubeconfig FILE -- CMD` run theirs: the command shares the terminal, a
// SIGTERM sent to clusterplane alone is passed on to it, clusterplane outlives it to undo what it
// set up for it, and its exit code is clusterplane's, as a shell gives it.
package childproc

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
)

// Guard catches SIGINT and SIGTERM from Catch until Release, so that neither ends clusterplane
// before it has undone what it set up for the command (a sandbox's clouds saved, a kubeconfig's
// file removed).
type Guard struct {
	signals chan os.Signal
}

// Catch starts catching SIGINT and SIGTERM; call it before setting up what must be undone.
func Catch() *Guard {
	g := &Guard{signals: make(chan os.Signal, 4)}
	signal.Notify(g.signals, os.Interrupt, syscall.SIGTERM)
	return g
}

// Release stops catching: the signals do what they did before Catch.
func (g *Guard) Release() { signal.Stop(g.signals) }

// Run starts cmd, waits for it and returns its exit code (Code). A signal caught since Catch,
// before cmd starts, stops it from starting: the code is then the signal's, as if the command
// had been ended by it. Ctrl-C reaches the command from the terminal itself, which it shares, so
// a SIGINT is not sent again (a second one makes the engine, and clusterplane, stop at once); a
// SIGTERM is sent to clusterplane alone (a service manager, a CI job's cancel, kill) and is
// passed on, or the command would run on with what clusterplane set up for it gone.
func (g *Guard) Run(cmd *exec.Cmd) (int, error) {
	select {
	case sig := <-g.signals:
		return signalCode(sig), nil
	default:
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-g.signals:
				if sig == syscall.SIGTERM {
					_ = cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return Code(err)
}

// Run runs cmd between Catch and Release (Guard.Run).
func Run(cmd *exec.Cmd) (int, error) {
	g := Catch()
	defer g.Release()
	return g.Run(cmd)
}

// Code is the exit code of a command whose Wait returned err: its own, or for a command a signal
// ended, which has none of its own (ExitCode is -1, which would be passed on as 255),
// exitcode.Signaled and the signal, as a shell gives it. An error other than the command's exit
// is returned as it is.
func Code(err error) (int, error) {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return exitcode.Signaled + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	}
	return 0, err
}

// signalCode is the exit code for sig, as a shell gives it.
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return exitcode.Signaled + int(s)
	}
	return exitcode.Interrupted
}
