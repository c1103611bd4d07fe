// Command testtimes reads `go test -json` on stdin and writes what a person reads of a long test
// run: each package's result line, the output of every test that failed (its first MiB, and of a
// package that failed to build or run), and at the end the slowest top-level tests with their
// times. It
// exits 1 when anything failed or no package passed, so that a Makefile line piping go test into
// it fails as go test would.
//
// The end-to-end suite runs for a quarter of an hour in one package: without per-test times, what
// makes it slow cannot be told from its one result line.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// cutNote ends a test's output kept to its limit (run.maxBytes): what followed is not written.
const cutNote = "[the rest of this output is cut: more than 1 MiB]\n"

// run is what the events said: the output kept for a failure, the top-level tests' times.
type run struct {
	out      io.Writer
	output   map[string]*strings.Builder // by package and test
	times    map[string]float64          // top-level tests, by package and test
	failed   bool
	passed   int
	maxBytes int
}

func main() {
	slowest := flag.Int("slowest", 15, "how many of the slowest top-level tests to list")
	flag.Parse()
	r := &run{out: os.Stdout, output: map[string]*strings.Builder{}, times: map[string]float64{}, maxBytes: 1 << 20}
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
	r.writeSlowest(*slowest)
	if r.failed || r.passed == 0 {
		os.Exit(1)
	}
}

// read takes the events in, writing results and failures as they come.
func (r *run) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// A build error and what go test says outside the JSON stream.
			fmt.Fprintln(r.out, string(line))
			continue
		}
		r.take(e)
	}
	return sc.Err()
}

// take is one event.
func (r *run) take(e event) {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "build-output":
		// A build's errors (Go 1.24 and later: keyed by ImportPath, not Package) are short and
		// are why its package fails: written as they come.
		fmt.Fprint(r.out, e.Output)
	case "build-fail":
		r.failed = true
	case "output":
		b := r.output[key]
		if b == nil {
			b = &strings.Builder{}
			r.output[key] = b
		}
		switch {
		case b.Len() < r.maxBytes:
			b.WriteString(e.Output)
		case !strings.HasSuffix(b.String(), cutNote):
			b.WriteString(cutNote)
		}
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.packageDone(e, key)
			return
		}
		if !strings.Contains(e.Test, "/") {
			r.times[key] = e.Elapsed
		}
		if e.Action == "fail" {
			r.failed = true
			fmt.Fprintf(r.out, "--- FAIL: %s (%.2fs)\n%s", e.Test, e.Elapsed, r.text(key))
		}
		delete(r.output, key)
	}
}

// packageDone writes a package's result line, and its own output when it failed.
func (r *run) packageDone(e event, key string) {
	switch e.Action {
	case "pass":
		r.passed++
		fmt.Fprintf(r.out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(r.out, "?   \t%s\t[no test files]\n", e.Package)
	case "fail":
		r.failed = true
		// A test still running when its package failed (a timeout's panic, a crash) has no
		// result of its own: its output is written here.
		var unfinished []string
		for k := range r.output {
			if k != key && strings.HasPrefix(k, e.Package+" ") {
				unfinished = append(unfinished, k)
			}
		}
		sort.Strings(unfinished)
		for _, k := range unfinished {
			fmt.Fprintf(r.out, "--- unfinished: %s\n%s", strings.TrimPrefix(k, e.Package+" "), r.text(k))
			delete(r.output, k)
		}
		fmt.Fprintf(r.out, "%sFAIL\t%s\t%.3fs\n", r.text(key), e.Package, e.Elapsed)
	}
	delete(r.output, key)
}

// text is the output kept under key.
func (r *run) text(key string) string {
	if b := r.output[key]; b != nil {
		return b.String()
	}
	return ""
}

// writeSlowest lists the n slowest top-level tests.
func (r *run) writeSlowest(n int) {
	keys := make([]string, 0, len(r.times))
	for k := range r.times {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r.times[keys[i]] > r.times[keys[j]] })
	if len(keys) > n {
		keys = keys[:n]
	}
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(r.out, "the %d slowest tests:\n", len(keys))
	for _, k := range keys {
		_, test, _ := strings.Cut(k, " ")
		fmt.Fprintf(r.out, "%10s  %s\n", (time.Duration(r.times[k] * float64(time.Second))).Round(100*time.Millisecond), test)
	}
}
