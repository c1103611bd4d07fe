package cli

import (
	"context"
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
