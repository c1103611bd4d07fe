package servecmd

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The first SIGTERM ends the replica's context, which begins its stop, and says what happens to
// the running jobs; the context stays open until then.
func TestTheFirstSIGTERMEndsTheContextAndSaysTheGrace(t *testing.T) {
	var said bytes.Buffer
	ctx, stop := stopOnSignal(context.Background(), &said, 20*time.Minute)
	defer stop()
	select {
	case <-ctx.Done():
		t.Fatal("the context ended before any signal")
	case <-time.After(50 * time.Millisecond):
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not end the context")
	}
	if !strings.Contains(said.String(), "--shutdown-grace 20m0s to finish") {
		t.Errorf("on SIGTERM serve said %q, want the grace the running jobs have", said.String())
	}
}
