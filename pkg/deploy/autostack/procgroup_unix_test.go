//go:build !windows

package autostack

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// inATerminalEnv marks the test binary run again on a pseudo-terminal, as clusterplane runs in a
// person's terminal.
const inATerminalEnv = "CLUSTERPLANE_TEST_IN_A_TERMINAL"

// A program the CLI starts cannot open the terminal clusterplane runs in: one that asked the
// terminal something would read, from it, the answer a person typed ahead of clusterplane's
// question.
func TestTheCLIAndItsPluginsCannotOpenTheTerminalClusterplaneRunsIn(t *testing.T) {
	if os.Getenv(inATerminalEnv) != "" {
		// On the terminal: start a shell as the CLI is started, and have it try /dev/tty.
		cmd := exec.Command("sh", "-c", "( : > /dev/tty ) 2>/dev/null && echo opens-the-terminal || echo no-terminal")
		cmd.Stdout = os.Stdout
		ownProcessGroup(cmd)
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTheCLIAndItsPluginsCannotOpenTheTerminalClusterplaneRunsIn$")
	cmd.Env = append(os.Environ(), inATerminalEnv+"=1")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	_, _ = io.Copy(&out, ptmx) // ends with an error once the test binary exits
	_ = cmd.Wait()
	if !strings.Contains(out.String(), "no-terminal") {
		t.Errorf("a program started as the CLI is: %q, want it unable to open the terminal", out.String())
	}
}
