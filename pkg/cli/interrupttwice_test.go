//go:build !windows

package cli_test

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
)

// Promise: upgrade-apply-interrupt
func TestAFirstInterruptAsksToStopAndASecondStopsAtOnce(t *testing.T) {
	var said bytes.Buffer
	ctx, stopping, stop := cli.InterruptibleTwice(&said)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopping:
	case <-time.After(5 * time.Second):
		t.Fatal("the first interrupt did not ask to stop")
	}
	select {
	case <-ctx.Done():
		t.Fatal("the first interrupt stopped what runs at once")
	case <-time.After(100 * time.Millisecond):
	}
	if !strings.Contains(said.String(), "Ctrl-C again stops at once") {
		t.Errorf("the first interrupt said %q", said.String())
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the second interrupt did not stop what runs")
	}
}
