package serve_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// The clients apart: the same rounds as the benchmark's own, sent by another process kept on
// one core while the replica and the database are kept on the other.
//
// When the 200 clients run in the replica's process they use more CPU than the replica does
// (net/http's client, two goroutines a connection), on the same two cores: the latency measured
// is then largely the clients' own. A portal's clients are browsers and other machines. Kept
// apart, the figure is the replica's and its database's, on one core of the two: a stricter test
// of them than the whole machine, and the replica's CPU a request is its own.

// clientProcessEnv makes the test binary the load client (TestTheBenchmarksLoadClient).
const clientProcessEnv = "CLUSTERPLANE_BENCH_CLIENT"

// clientOrder is what the benchmark sends the client process on its standard input.
type clientOrder struct {
	URL    string   `json:"url"`
	Token  string   `json:"token"`
	Paths  []string `json:"paths"`
	Rounds int      `json:"rounds"`
}

// TestTheBenchmarksLoadClient is not a test: run by the benchmark as a process of its own (with
// CLUSTERPLANE_BENCH_CLIENT set), it sends the rounds it is ordered, each path at once, and
// writes every latency. It does nothing in a test run.
func TestTheBenchmarksLoadClient(t *testing.T) {
	if os.Getenv(clientProcessEnv) == "" {
		return
	}
	if err := runLoadClient(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runLoadClient reads an order, opens the connections with an untimed round, says "ready",
// waits for a line, then sends the rounds and writes their latencies in nanoseconds as JSON.
func runLoadClient(in io.Reader, out io.Writer) error {
	lines := bufio.NewReader(in)
	line, err := lines.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read the order: %w", err)
	}
	var order clientOrder
	if err := json.Unmarshal(line, &order); err != nil {
		return fmt.Errorf("read the order: %w", err)
	}
	transport := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	a := &benchAPI{url: order.URL, tokens: map[auth.Role]string{auth.Viewer: order.Token},
		client: &http.Client{Transport: transport, Timeout: time.Minute}}
	lat := make([]time.Duration, len(order.Paths))
	if err := a.getAtOnce(order.Paths, lat); err != nil {
		return err
	}
	fmt.Fprintln(out, "ready")
	if _, err := lines.ReadBytes('\n'); err != nil {
		return fmt.Errorf("wait for the start: %w", err)
	}
	all := make([]int64, 0, order.Rounds*len(order.Paths))
	for range order.Rounds {
		if err := a.getAtOnce(order.Paths, lat); err != nil {
			return err
		}
		for _, l := range lat {
			all = append(all, int64(l))
		}
	}
	return json.NewEncoder(out).Encode(all)
}

// apartRun is one run of the client process: the latencies, and the CPU time the client, the
// replica (this process) and the database spent while the rounds ran.
type apartRun struct {
	lats                      []time.Duration
	elapsed                   time.Duration
	client, replica, database time.Duration
}

// runApart sends rounds of paths from a client process on CPU 0, with this process (the
// replica) and the PostgreSQL server on port (0: none) kept on CPU 1 meanwhile.
func (a *benchAPI) runApart(b *testing.B, paths []string, rounds int) apartRun {
	b.Helper()
	if runtime.NumCPU() < 2 {
		b.Skip("the clients apart need two CPUs")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTheBenchmarksLoadClient$")
	cmd.Env = append(os.Environ(), clientProcessEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	// The child starts on CPU 0 and stays there: a process begins with the mask of the thread
	// that started it, and every thread it makes takes its maker's.
	if err := startOn(cmd, 0); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait() //nolint:errcheck // its failure shows as a missing answer below
	defer stdin.Close()
	restore := keepOn(b, 1, a.databasePort)
	defer restore()
	order, _ := json.Marshal(clientOrder{URL: a.url, Token: a.tokens[auth.Viewer], Paths: paths, Rounds: rounds})
	answers := bufio.NewReader(stdout)
	if _, err := stdin.Write(append(order, '\n')); err != nil {
		b.Fatal(err)
	}
	if line, err := answers.ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("the client process did not get ready: %q %v", line, err)
	}
	client, replica, database := pidCPU(cmd.Process.Pid), processCPU(), serverCPU(a.databasePort)
	began := time.Now()
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		b.Fatal(err)
	}
	line, err := answers.ReadBytes('\n')
	if err != nil {
		b.Fatalf("the client process did not answer: %v", err)
	}
	run := apartRun{elapsed: time.Since(began), replica: processCPU() - replica,
		database: serverCPU(a.databasePort) - database, client: pidCPU(cmd.Process.Pid) - client}
	var ns []int64
	if err := json.Unmarshal(line, &ns); err != nil {
		b.Fatalf("the client process's latencies: %v", err)
	}
	for _, n := range ns {
		run.lats = append(run.lats, time.Duration(n))
	}
	return run
}

// report writes the run's figures as the benchmark's metrics.
func (run apartRun) report(b *testing.B) {
	lats := slices.Clone(run.lats)
	slices.Sort(lats)
	n := float64(len(lats))
	b.ReportMetric(percentile(lats, 50), "p50-ms")
	b.ReportMetric(percentile(lats, 99), "p99-ms")
	b.ReportMetric(n/run.elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(run.replica.Microseconds())/n, "replica-µs/req")
	b.ReportMetric(float64(run.database.Microseconds())/n, "database-µs/req")
	b.ReportMetric(float64(run.client.Microseconds())/n, "client-µs/req")
}

// startOn starts cmd with its first thread on cpu.
func startOn(cmd *exec.Cmd, cpu int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was, on unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return fmt.Errorf("read this thread's CPUs: %w", err)
	}
	on.Set(cpu)
	if err := unix.SchedSetaffinity(0, &on); err != nil {
		return fmt.Errorf("keep this thread on CPU %d: %w", cpu, err)
	}
	err := cmd.Start()
	if err2 := unix.SchedSetaffinity(0, &was); err == nil && err2 != nil {
		err = fmt.Errorf("give this thread its CPUs back: %w", err2)
	}
	return err
}

// keepOn keeps every thread of this process, and the PostgreSQL server on port (0: none) with
// its processes, on cpu, until the returned function gives them back the CPUs they had.
func keepOn(b *testing.B, cpu, port int) func() {
	b.Helper()
	var was, on unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		b.Fatal(err)
	}
	on.Set(cpu)
	// Listed again when given back: threads and backends made meanwhile took the one CPU.
	set := func(mask *unix.CPUSet) {
		var pids []string
		if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
			for _, t := range tasks {
				pids = append(pids, t.Name())
			}
		}
		postmaster, children := postgresProcesses(port)
		if postmaster != "" {
			pids = append(append(pids, postmaster), children...)
		}
		for _, pid := range pids {
			if id, err := strconv.Atoi(pid); err == nil {
				// A thread or a backend may have ended meanwhile: nothing to keep then.
				_ = unix.SchedSetaffinity(id, mask)
			}
		}
	}
	set(&on)
	return func() { set(&was) }
}

// pidCPU is a process's own user and system time, from /proc.
func pidCPU(pid int) time.Duration {
	return time.Duration(cpuTicks(strconv.Itoa(pid), false)) * 10 * time.Millisecond
}
