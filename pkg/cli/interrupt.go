package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Interruptible is the context of a command that runs engines or cloud requests: the first Ctrl-C
// or SIGTERM cancels it, so that what runs stops cleanly (each engine interrupted, the report
// printed, exit 130). SIGTERM is what a CI job's cancel, a container's stop and kill send: left
// to its default it would end clusterplane mid-create with the stack locked. After the first
// signal none is caught: a second Ctrl-C ends clusterplane at once, as the engine's own "press
// ^C again to terminate immediately" says, and the engines' supervisor ends them with it.
func Interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// InterruptibleTwice is the context of a command whose work a first Ctrl-C (or SIGTERM) asks to
// stop starting new work, closing stopping and saying so on w, and a second stops at once,
// ending ctx: upgrade apply lets the cluster upgrades under way end before it stops. stop
// releases the signals.
func InterruptibleTwice(w io.Writer) (ctx context.Context, stopping <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	first := make(chan struct{})
	go func() {
		select {
		case <-signals:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(w, "stopping: what is under way ends first; Ctrl-C again stops at once")
		close(first)
		select {
		case <-signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, first, func() { signal.Stop(signals); cancel() }
}
