package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// How a test hands a file to clusterplane.
const (
	asFile  = "file"
	asPipe  = "pipe"  // an anonymous pipe named /dev/fd/N, as bash's <(...) makes
	asFIFO  = "fifo"  // a named pipe
	asStdin = "stdin" // "-"
	asAgain = "again" // the argument before it once more: one pipe named twice
)

// pipe returns a /dev/fd path to an anonymous pipe that yields text once.
func pipe(t *testing.T, text string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(text)
		w.Close()
	}()
	// Closing the read end also ends the writer when clusterplane never reads the pipe.
	t.Cleanup(func() { r.Close() })
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /dev/fd here to name a pipe by: %v", err)
	}
	return path
}

// fifo returns a named pipe in a temporary directory that yields text once.
func fifo(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString(text)
		w.Close()
	}()
	t.Cleanup(func() {
		// The writer blocks opening the pipe until a reader does: open it, should clusterplane
		// not have, so that the goroutine ends.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-done
			r.Close()
		}
	})
	return path
}

// Promise: stack-input-bounds
func TestPlanAndDiffReadPipesAndStandardInputOnceAsTheProgramsReadFiles(t *testing.T) {
	dir := filepath.Join(examples, "digitaloceankubernetescluster")
	minimal, production := filepath.Join(dir, "minimal.yaml"), filepath.Join(dir, "production.yaml")
	invalid := filepath.Join(writeFiles(t, map[string]string{
		"invalid.yaml": strings.Replace(readExample(t, "digitaloceankubernetescluster/minimal.yaml"), "name: dev-fra1", "name: Bad_Name", 1),
	}), "invalid.yaml")
	tests := []struct {
		name    string
		command string
		files   []string
		via     []string
		flags   []string
	}{
		{"plan of a pipe is the program's plan of the file", "plan", []string{minimal}, []string{asPipe}, nil},
		{"plan of a named pipe writes the program's JSON", "plan", []string{production}, []string{asFIFO}, []string{"-o", "json"}},
		{"plan of standard input is the program's plan of the file", "plan", []string{production}, []string{asStdin}, nil},
		{"plan of an invalid manifest in a pipe names the pipe and exits one", "plan", []string{invalid}, []string{asPipe}, nil},
		{"diff of a pipe against a file is the program's diff of the two files", "diff", []string{minimal, production}, []string{asPipe, asFile}, nil},
		{"diff of a file against a pipe is the program's diff of the two files", "diff", []string{minimal, production}, []string{asFile, asPipe}, []string{"-o", "json"}},
		{"diff of two named pipes is the program's diff of the two files", "diff", []string{production, minimal}, []string{asFIFO, asFIFO}, nil},
		{"diff of standard input against a pipe is the program's diff of the two files", "diff", []string{minimal, production}, []string{asStdin, asPipe}, []string{"--allow-replace"}},
		{"diff of a file against standard input is the program's diff of the two files", "diff", []string{minimal, minimal}, []string{asFile, asStdin}, nil},
		{"diff of one named pipe named twice reads it once and finds no change", "diff", []string{minimal, minimal}, []string{asFIFO, asAgain}, nil},
		{"diff of an invalid manifest from standard input names standard input and exits one", "diff", []string{minimal, invalid}, []string{asFile, asStdin}, nil},
	}
	k := programs[slices.IndexFunc(programs, func(k kinds.Kind) bool { return k.Name == "DigitalOceanKubernetesCluster" })]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, stdin := []string{tt.command}, ""
			renamed := map[string]string{}
			for i, file := range tt.files {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				arg := file
				switch tt.via[i] {
				case asPipe:
					arg = pipe(t, string(data))
				case asFIFO:
					arg = fifo(t, string(data))
				case asStdin:
					arg, stdin = "-", string(data)
				case asAgain:
					arg = args[len(args)-1]
				}
				args = append(args, arg)
				renamed[file] = arg
			}
			// A second read of a named pipe waits for a writer that is gone: fail, not hang.
			done := make(chan result, 1)
			go func() { done <- run(t, stdin, append(args, tt.flags...)...) }()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("clusterplane %v did not end in 30s: it reads a pipe twice", args)
			}
			// After run, which cleared the environment's provider config the program reads too.
			program := runProgram(k, append(append([]string{tt.command}, tt.files...), tt.flags...)...)
			want, wantStdout, wantStderr := program.code, program.stdout, program.stderr
			for file, arg := range renamed {
				wantStderr = strings.ReplaceAll(wantStderr, file+":", arg+":")
			}
			for file, arg := range renamed {
				wantStdout = strings.ReplaceAll(wantStdout, file+":", arg+":")
			}
			if r.code != want || r.stdout != wantStdout || r.stderr != wantStderr {
				t.Errorf("clusterplane %v = exit %d, stdout:\n%s\nstderr:\n%s\nthe program on the files = exit %d, stdout:\n%s\nstderr (its files renamed):\n%s",
					args, r.code, r.stdout, r.stderr, want, wantStdout, wantStderr)
			}
			if r.stdout == "" && r.stderr == "" {
				t.Errorf("clusterplane %v said nothing", args)
			}
		})
	}
}
