package cli

import (
	"context"
	"os"
	"os/signal"
)

// Interruptible is the context of a command that runs engines or cloud requests: the first Ctrl-C
// cancels it, so that what runs stops cleanly (each engine interrupted, the report printed, exit
// 130). After it the signal is no longer caught: a second Ctrl-C ends clusterplane at once, as the
// engine's own "press ^C again to terminate immediately" says, and the engines' supervisor ends
// them with it.
func Interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
