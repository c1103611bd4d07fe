//go:build !windows

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// What clusterplane's own process must never write to the terminal as it starts: termenv's
// questions for the background colour and the cursor position (package internal/typeahead).
// Reading their answers swallows what the person typed ahead.
var terminalQueries = []string{"\x1b]11;?", "\x1b[6n"}

var (
	builtOnce sync.Once
	builtDir  string
	built     string
	buildErr  error
)

// TestMain removes the binary the typeahead tests built, so that no run leaves a folder in the
// system's temporary directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// builtClusterplane is this command built as a person runs it: what happens before main, in
// the packages' inits, happens only in a binary of its own, never in this test's process.
func builtClusterplane(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the clusterplane binary; skipped with -short")
	}
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clusterplane-typeahead-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		built = filepath.Join(dir, "clusterplane")
		if out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// onAPseudoTerminal runs the built clusterplane with args on a new pseudo-terminal, its
// controlling terminal as a person's shell gives it, on which typed was typed before it
// started. It returns what clusterplane wrote to the terminal (with the terminal's echo of
// typed) and to stderr, which is not the terminal so that Go's init trace stays apart.
func onAPseudoTerminal(t *testing.T, typed string, env []string, args ...string) (terminal, stderr string) {
	t.Helper()
	bin := builtClusterplane(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if _, err := ptmx.Write([]byte(typed)); err != nil {
		t.Fatal(err)
	}
	var errBuf bytes.Buffer
	cmd := exec.Command(bin, args...)
	// termenv asks a terminal nothing when CI is set: drop CI, so that on a CI runner too these
	// tests see clusterplane ask when it does.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, &errBuf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true} // Ctty 0: its stdin
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // only clusterplane holds the terminal now: reading ptmx ends when it exits
	var out bytes.Buffer
	read := make(chan struct{})
	go func() { _, _ = io.Copy(&out, ptmx); close(read) }()
	// A clusterplane that lost what was typed waits for input forever: give up on it.
	stuck := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer stuck.Stop()
	_ = cmd.Wait()
	<-read
	return out.String(), errBuf.String()
}

func TestClusterplaneAsksTheTerminalNothingAtStart(t *testing.T) {
	terminal, stderr := onAPseudoTerminal(t, "", []string{"TERM=xterm-256color", "GODEBUG=inittrace=1"}, "version")
	if !strings.Contains(terminal, "clusterplane ") {
		t.Fatalf("clusterplane version wrote %q to the terminal", terminal)
	}
	for _, q := range terminalQueries {
		if strings.Contains(terminal, q) {
			t.Errorf("clusterplane wrote the terminal query %q as it started: it would read the answer, "+
				"and what the person typed ahead with it, from the terminal:\n%q", q, terminal)
		}
	}
	// Package typeahead's init must run before termenv's and its users' (lipgloss, bubbletea),
	// in Go's init trace ("init <package> @..." lines, in the order they ran). A new dependency
	// of package typeahead, or a new import path, could change that.
	first := -1
	for i, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		switch f[1] {
		case "github.com/clusterplane/clusterplane/internal/typeahead":
			first = i
		case "github.com/muesli/termenv", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbletea":
			if first < 0 {
				t.Errorf("%s is initialized before package typeahead sets TERM=dumb", f[1])
			}
		}
	}
	if first < 0 {
		t.Errorf("no init of package typeahead in Go's init trace (GODEBUG=inittrace=1): is it still imported?")
	}
}

func TestWhatIsTypedAheadOfClusterplaneReachesIt(t *testing.T) {
	// A manifest typed before clusterplane starts, ended by Ctrl-D: validate - reads it.
	terminal, stderr := onAPseudoTerminal(t, "kind: TypedAhead\n\x04", []string{"TERM=xterm-256color"},
		"validate", "-")
	if want := `unknown kind "TypedAhead"`; !strings.Contains(stderr, want) {
		t.Errorf("clusterplane validate - did not read what was typed ahead (want %q):\n%q\n%s", want, terminal, stderr)
	}
}

// The programs clusterplane starts, here the Pulumi CLI, see TERM as the person has it, set or
// not: package typeahead's TERM=dumb lasts only while the packages initialize.
func TestTheProgramsClusterplaneStartsSeeTheTermThePersonHas(t *testing.T) {
	bin := builtClusterplane(t)
	for _, term := range []string{"xterm-256color", ""} {
		dir := t.TempDir()
		seen := filepath.Join(dir, "term")
		fake := "#!/bin/sh\necho \"${TERM-unset}\" > '" + seen + "'\nexit 1\n"
		if err := os.WriteFile(filepath.Join(dir, "pulumi"), []byte(fake), 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "preview", filepath.Join(examples, "digitaloceankubernetescluster", "minimal.yaml"))
		cmd.Env = []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir}
		want := "unset"
		if term != "" {
			cmd.Env, want = append(cmd.Env, "TERM="+term), term
		}
		out, _ := cmd.CombinedOutput() // the fake CLI fails: clusterplane stops there
		got, err := os.ReadFile(seen)
		if err != nil {
			t.Fatalf("clusterplane did not start the Pulumi CLI on PATH: %v\n%s", err, out)
		}
		if strings.TrimSpace(string(got)) != want {
			t.Errorf("the Pulumi CLI saw TERM %q, want %q", strings.TrimSpace(string(got)), want)
		}
	}
}
