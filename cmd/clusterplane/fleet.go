package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// key names a stack as references do: <project>/<stack>.
func (t target) key() string { return t.project + "/" + t.stack }

// references are the stacks a stack input's valueFrom fields read, as <project>/<stack>.
func references(in proto.Message) []string {
	var out []string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() == nil || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
				return true
			}
			if ref, ok := v.Message().Interface().(*sharedv1.StringValueOrRef); ok {
				if from := ref.GetValueFrom(); from != nil {
					out = append(out, reference.Key(from))
				}
				return true
			}
			walk(v.Message())
			return true
		})
	}
	walk(stackinput.Target(in).ProtoReflect())
	return out
}

// order sorts targets so that every stack comes after the stacks it references, and returns each
// target's dependencies among them. A reference to a stack no target deploys must name an existing
// stack (exists answers); a cycle, or a reference to nothing, is an error naming both ends.
func order(targets []target, exists func(key string) (bool, error)) ([]target, map[string][]string, error) {
	byKey := map[string]target{}
	for _, t := range targets {
		if other, ok := byKey[t.key()]; ok {
			return nil, nil, errors.Errorf("%s and %s both deploy stack %s", other.file, t.file, t.key())
		}
		byKey[t.key()] = t
	}
	deps := map[string][]string{}
	for _, t := range targets {
		for _, ref := range references(t.input) {
			if _, ok := byKey[ref]; ok {
				deps[t.key()] = append(deps[t.key()], ref)
				continue
			}
			found, err := exists(ref)
			if err != nil {
				return nil, nil, errors.Wrapf(err, "%s references stack %s, which no manifest given deploys", t.file, ref)
			}
			if !found {
				return nil, nil, errors.Errorf("%s references stack %s, which no manifest given deploys and which does not exist",
					t.file, ref)
			}
		}
	}
	var sorted []target
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(key string, from string) error
	visit = func(key, from string) error {
		switch state[key] {
		case 1:
			return errors.Errorf("%s and %s reference each other (a cycle through stack %s)", byKey[from].file, byKey[key].file, key)
		case 2:
			return nil
		}
		state[key] = 1
		for _, dep := range deps[key] {
			if err := visit(dep, key); err != nil {
				return err
			}
		}
		state[key] = 2
		sorted = append(sorted, byKey[key])
		return nil
	}
	for _, t := range targets {
		if err := visit(t.key(), t.key()); err != nil {
			return nil, nil, err
		}
	}
	return sorted, deps, nil
}

// outcome is one stack's result in a fleet run.
type outcome struct {
	result  string
	failed  bool
	skipped bool
	took    time.Duration
}

// runFleet runs op on every target, at most parallel at once, each after the stacks it depends
// on (before them when reverse, as destroy needs). A failure skips its dependants and nothing
// else. It prints a table of what was done, skipped and failed.
func (a *app) runFleet(ctx context.Context, targets []target, deps map[string][]string, parallel int, reverse bool,
	op func(ctx context.Context, t target, progress io.Writer) (string, error)) {
	if parallel < 1 {
		parallel = 1
	}
	// waits[k] are the stacks k waits for: its dependencies, or for destroy its dependants.
	waits := map[string][]string{}
	for k, ds := range deps {
		for _, d := range ds {
			if reverse {
				waits[d] = append(waits[d], k)
			} else {
				waits[k] = append(waits[k], d)
			}
		}
	}
	var mu sync.Mutex
	done := map[string]*outcome{}
	finished := make(chan struct{}, len(targets))
	started := map[string]bool{}
	running := 0
	var wg sync.WaitGroup
	for len(done) < len(targets) {
		mu.Lock()
		for _, t := range targets {
			if started[t.key()] || running >= parallel {
				continue
			}
			ready, blocked := true, ""
			for _, w := range waits[t.key()] {
				o, ok := done[w]
				switch {
				case !ok:
					ready = false
				case o.failed || o.skipped:
					blocked = w
				}
			}
			if blocked != "" {
				started[t.key()] = true
				done[t.key()] = &outcome{skipped: true, result: "skipped: " + blocked + " did not deploy"}
				finished <- struct{}{}
				continue
			}
			if !ready {
				continue
			}
			started[t.key()] = true
			running++
			wg.Add(1)
			go func(t target) {
				defer wg.Done()
				start := time.Now()
				var buf bytes.Buffer
				result, err := op(ctx, t, &prefixed{w: &lockedWriter{w: a.stderr, mu: &a.outMu}, prefix: t.key() + ": ", buf: &buf})
				o := &outcome{result: result, took: time.Since(start)}
				if err != nil {
					o.failed, o.result = true, "failed"
					a.fail(t, err)
				}
				mu.Lock()
				done[t.key()] = o
				running--
				mu.Unlock()
				finished <- struct{}{}
			}(t)
		}
		mu.Unlock()
		select {
		case <-finished:
		case <-ctx.Done():
			wg.Wait()
			return
		}
	}
	wg.Wait()
	a.fleetTable(targets, done)
}

func (a *app) fleetTable(targets []target, done map[string]*outcome) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSTACK\tRESULT\tTIME")
	var failed, skipped int
	for _, t := range targets {
		o := done[t.key()]
		switch {
		case o.failed:
			failed++ // a.fail raised the exit code
		case o.skipped:
			skipped++
			a.code = max(a.code, program.ExitInvalid)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.file, t.key(), o.result, o.took.Round(time.Second))
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "%d done, %d skipped, %d failed\n", len(targets)-failed-skipped, skipped, failed)
}

// prefixed writes each line with a prefix, so that the progress of parallel stacks stays apart.
type prefixed struct {
	w      io.Writer
	prefix string
	buf    *bytes.Buffer
}

func (p *prefixed) Write(data []byte) (int, error) {
	p.buf.Write(data)
	for {
		line, err := p.buf.ReadString('\n')
		if err != nil {
			p.buf.WriteString(line) // an unfinished line waits for its end
			return len(data), nil
		}
		if _, err := io.WriteString(p.w, p.prefix+line); err != nil {
			return 0, err
		}
	}
}

// lockedWriter serialises writes from parallel stacks.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(data []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(data)
}

// describe says why a stack's operation failed, in the user's terms: the engine's own error lines
// (its progress was streamed already), and for the faults a user can mend, what to run.
func describe(err error, t target) string {
	var pending pendingCreatesError
	switch {
	case errors.As(err, &pending):
		return pendingAdvice(pending.creates, t)
	case auto.IsConcurrentUpdateError(err):
		return "the stack is locked: another operation on it is running. Wait for it to end; if it was killed, " +
			"remove its lock with " + cancelCommand(t) + ", then run this again"
	case strings.Contains(err.Error(), "pending operations") || strings.Contains(err.Error(), "interrupted"):
		// `pulumi refresh` would need a Pulumi.yaml of the project: clusterplane's programs are inline.
		return "an earlier operation on the stack was interrupted and left pending operations: run `clusterplane refresh " +
			t.file + "` to reconcile them with the cloud, then run this again"
	}
	text := err.Error()
	first, rest, _ := strings.Cut(text, "\n")
	var lines []string
	for _, line := range strings.Split(rest, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "error:") {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return first
	}
	return first + ": " + strings.Join(lines, "; ")
}
