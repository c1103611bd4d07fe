package autostack

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests run a shell script as the "CLI": it starts a process of its own session (as Pulumi
// starts each plugin in a group of its own), out of reach of any signal to the CLI's group.

// marked are the live processes whose environment holds mark, by pid.
func marked(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(data, []byte(mark)) {
			out = append(out, pid)
		}
	}
	return out
}

// sleeping tells whether the process the CLI starts, `sleep 300`, runs.
func sleeping(mark string) bool {
	for _, pid := range marked(mark) {
		if data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); bytes.Equal(data, []byte("sleep\x00300\x00")) {
			return true
		}
	}
	return false
}

// survivors waits up to d for every process with mark to end and returns those still running,
// killed then so that no test leaves them behind.
func survivors(mark string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for len(marked(mark)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	left := marked(mark)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return left
}

// until is a writer that closes ready once what was written holds word.
type until struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	word  string
	ready chan struct{}
	once  sync.Once
}

func newUntil(word string) *until { return &until{word: word, ready: make(chan struct{})} }

func (u *until) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.buf.Write(p)
	if strings.Contains(u.buf.String(), u.word) {
		u.once.Do(func() { close(u.ready) })
	}
	return len(p), nil
}

// shell is a "CLI" that runs sh; Run adds --non-interactive, which sh -c takes as $0.
func shell(t *testing.T) *cli {
	t.Helper()
	path, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	return &cli{path: path}
}

// runShell runs script as the CLI with mark in its environment and cancels it once it printed
// "ready" when cancel is set.
func runShell(t *testing.T, script, mark string, cancel bool) (string, int, error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out := newUntil("ready")
	if cancel {
		go func() {
			select {
			case <-out.ready:
				stop()
			case <-time.After(20 * time.Second):
			}
		}()
	}
	stdout, _, code, err := shell(t).Run(ctx, t.TempDir(), nil, []io.Writer{out}, nil, []string{mark}, "-c", script)
	return stdout, code, err
}

func TestWhatTheCLILeftRunningEndsWithItAndItsExitCodeIsKept(t *testing.T) {
	mark := fmt.Sprintf("CLUSTERPLANE_TEST_MARK=left-%d-%d", os.Getpid(), time.Now().UnixNano())
	stdout, code, _ := runShell(t, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo started; exit 3", mark, false)
	if code != 3 || !strings.Contains(stdout, "started") {
		t.Errorf("the CLI ended %d printing %q, want 3 and its output", code, stdout)
	}
	if left := survivors(mark, 2*time.Second); len(left) > 0 {
		t.Errorf("%d processes the CLI started outlived it: %v", len(left), left)
	}
}

func TestACancelledRunInterruptsTheCLIAndEndsWhatItStarted(t *testing.T) {
	mark := fmt.Sprintf("CLUSTERPLANE_TEST_MARK=cancelled-%d-%d", os.Getpid(), time.Now().UnixNano())
	script := "trap 'echo interrupted; exit 7' INT; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo ready; while :; do sleep 1; done"
	stdout, code, _ := runShell(t, script, mark, true)
	if code != 7 || !strings.Contains(stdout, "interrupted") {
		t.Errorf("the cancelled CLI ended %d printing %q, want 7 after its interrupt handler", code, stdout)
	}
	if left := survivors(mark, 2*time.Second); len(left) > 0 {
		t.Errorf("%d processes of the cancelled CLI outlived it: %v", len(left), left)
	}
}

func TestACLIThatIgnoresTheInterruptIsEndedWithAllItStartedBeforeTheWaitDelay(t *testing.T) {
	defer func(wait, term time.Duration) { cliWaitDelay, cliTermBefore = wait, term }(cliWaitDelay, cliTermBefore)
	cliWaitDelay, cliTermBefore = 20*time.Second, 19*time.Second
	mark := fmt.Sprintf("CLUSTERPLANE_TEST_MARK=deaf-%d-%d", os.Getpid(), time.Now().UnixNano())
	script := "trap '' INT; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo ready; while :; do sleep 1; done"
	start := time.Now()
	_, code, err := runShell(t, script, mark, true)
	if took := time.Since(start); took > 10*time.Second || code == 0 {
		t.Errorf("the CLI deaf to the interrupt ended %d (%v) after %s, want killed a second after the cancel", code, err, took)
	}
	if left := survivors(mark, 2*time.Second); len(left) > 0 {
		t.Errorf("%d processes of the killed CLI outlived it: %v", len(left), left)
	}
}

// helperEnv makes the test binary run TestHelperRunsTheShellCLI as a clusterplane would.
const helperEnv = "CLUSTERPLANE_TEST_HELPER_MARK"

// TestHelperRunsTheShellCLI is the clusterplane of the next test: it runs a CLI that starts a
// process of its own session, and never returns.
func TestHelperRunsTheShellCLI(t *testing.T) {
	mark := os.Getenv(helperEnv)
	if mark == "" {
		t.Skip("run by TestAKilledClusterplaneTakesTheCLIAndEverythingItStartedWithIt")
	}
	script := "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo ready; while :; do sleep 1; done"
	_, _, _ = runShell(t, script, mark, false)
}

func TestAKilledClusterplaneTakesTheCLIAndEverythingItStartedWithIt(t *testing.T) {
	shell(t)
	mark := fmt.Sprintf("CLUSTERPLANE_TEST_MARK=killed-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRunsTheShellCLI$", "-test.timeout=5m")
	// The helper is killed, so its own t.TempDir is never removed: it makes it under this
	// test's, which is.
	cmd.Env = append(os.Environ(), helperEnv+"="+mark, "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper itself is not marked: the CLI's environment is, and the supervisor's.
	for deadline := time.Now().Add(20 * time.Second); !sleeping(mark); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the CLI did not start its process: %v", marked(mark))
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if left := survivors(mark, 5*time.Second); len(left) > 0 {
		t.Errorf("%d processes outlived the clusterplane that started them: %v", len(left), left)
	}
}

// The supervisor is this executable started again, once per run of the CLI, and an operation runs
// the CLI many times: it must take over before the packages that cost a start most run their
// init (the Pulumi SDK's workspace compiles a JSON schema, for one). The test binary links them
// all, as clusterplane does; Go's init trace says in which order they ran.
func TestTheSupervisorTakesOverBeforeThePulumiSDKsPackagesInitialise(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run the test binary: %v\n%s", err, out)
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && fields[0] == "init" {
			order[fields[1]] = i
		}
	}
	at, seen := order["github.com/clusterplane/clusterplane/pkg/deploy/autostack/supervisor"]
	if !seen {
		t.Fatal("the init trace does not show the supervisor's init")
	}
	for _, later := range []string{"github.com/pulumi/pulumi/sdk/v3/go/common/workspace", "github.com/santhosh-tekuri/jsonschema/v5",
		"google.golang.org/grpc"} {
		switch _, ran := order[later]; {
		case !ran:
			t.Errorf("the init trace does not show %s: the test no longer measures the order", later)
		case order[later] < at:
			t.Errorf("%s ran its init before the supervisor's: line %d of the trace, the supervisor's %d", later, order[later], at)
		}
	}
}
