// Package diffpairs runs OLD/NEW pairs of a kind's stack input through the kind's diff command
// and holds what diff says against what each pair claims. Each kind writes its pairs as data in
// its own folder (iac/pulumi/<kind>/testdata/diff-pairs.yaml) and its entry/diff_test.go calls
// Check with them (Read), which also fails for a row of the kind's effects table that no pair
// covers: a fifth kind brings its pairs with it. A pairs file is a YAML list of pairs; a pair's
// keys are:
//
//	name     the subtest's name
//	edit     dotted paths set in OLD and NEW alike (none: OLD is the kind's example)
//	change   dotted paths set in NEW only
//	args     more arguments given to diff (--allow-replace)
//	path     the path of the change the pair is about
//	effect   that change's effect; or invalid: true, when the spec's rules refuse NEW
//	refusal  what the provider does with a refused change deployed anyway, when the pair says it
//	exit     diff's exit: blocked or invalid; ok when none is given
//
// edit and change set dotted paths as set says. Tests of diff itself build pairs in Go, with Spec
// and edit functions of their own. It is for tests.
package diffpairs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is a kind with the example every pair of it starts from: examples/<program>/minimal.yaml.
type Kind struct {
	kinds.Kind
	// Example is the path of the example.
	Example string
}

// Of is k with its minimal example, found from the module's root.
func Of(k kinds.Kind) Kind {
	return Kind{Kind: k, Example: filepath.Join(root(), "examples", k.Project, "minimal.yaml")}
}

// root is the module's root: the nearest folder above the working directory with a go.mod. A
// test runs in its package's folder, so the walk ends inside the repository.
func root() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Run runs the kind's program command (validate, plan, diff) with args, as its binary would.
func (k Kind) Run(args []string, stdout, stderr *bytes.Buffer) int {
	a := &cli.App{Name: k.Project, Programs: []cli.Program{k.Offline}, Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr}
	return a.Execute(a.ProgramCommand(), args)
}

// Load reads the kind's example into a new stack input.
func (k Kind) Load(t testing.TB) proto.Message {
	t.Helper()
	in := k.NewStackInput()
	if err := stackinput.LoadFile(k.Example, in); err != nil {
		t.Fatal(err)
	}
	return in
}

// Pair is an OLD/NEW pair: both start from the kind's example; both get Edit, then NEW gets
// Change. The change at Path must have Effect, and diff must exit with Exit.
type Pair struct {
	Name   string
	Kind   Kind
	Edit   func(proto.Message)
	Change func(proto.Message)
	// edit and change are a pairs file's edit and change, dotted paths; Files sets them (set)
	// after Edit and after Change run.
	edit, change map[string]any
	Args         []string
	Path         string
	Effect       effects.Effect
	// Refusal, when set, is what the provider does with the refused change deployed anyway: a
	// removal the provider keeps (kept) reads differently from a change that fails at apply.
	Refusal effects.Refusal
	Exit    int
	// Invalid: the spec's rules refuse NEW before diff compares anything.
	Invalid bool
}

// Spec is a typed edit of the spec S of a kind's stack input: every kind's stack input holds its
// manifest in target and the manifest its spec in spec, so a kind's pairs need no edit function
// of their own.
func Spec[S proto.Message](f func(S)) func(proto.Message) {
	return func(m proto.Message) {
		target := mutable(m.ProtoReflect(), "target")
		f(mutable(target, "spec").Interface().(S))
	}
}

// mutable is m's message field of that name, made when it is not set.
func mutable(m protoreflect.Message, name string) protoreflect.Message {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("diffpairs: " + string(m.Descriptor().FullName()) + " has no field " + name)
	}
	return m.Mutable(fd).Message()
}

// writeInput writes a stack input as JSON to a file in dir.
func writeInput(t testing.TB, dir, name string, m proto.Message) string {
	t.Helper()
	data, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Files writes OLD and NEW of a pair and returns their paths.
func (p Pair) Files(t testing.TB) (oldFile, newFile string) {
	t.Helper()
	oldInput := p.Kind.Load(t)
	apply(t, oldInput, p.Edit, p.edit)
	newInput := proto.Clone(oldInput)
	apply(t, newInput, p.Change, p.change)
	dir := t.TempDir()
	return writeInput(t, dir, "old.json", oldInput), writeInput(t, dir, "new.json", newInput)
}

// apply edits stack input m with f, an edit in Go, then sets paths, as a pairs file writes them.
func apply(t testing.TB, m proto.Message, f func(proto.Message), paths map[string]any) {
	t.Helper()
	if f != nil {
		f(m)
	}
	if len(paths) == 0 {
		return
	}
	if err := set(m, paths); err != nil {
		t.Fatal(err)
	}
}

// Diff diffs OLD and NEW of a pair through its program and returns the JSON result, the exit
// code and what it wrote on stderr.
func (p Pair) Diff(t testing.TB) (*diff.Result, int, string) {
	t.Helper()
	oldFile, newFile := p.Files(t)
	args := append([]string{"diff", oldFile, newFile, "-o", "json"}, p.Args...)
	var stdout, stderr bytes.Buffer
	code := p.Kind.Run(args, &stdout, &stderr)
	var result diff.Result
	if code == exitcode.OK || code == exitcode.Blocked {
		if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
			t.Fatalf("diff -o json wrote %q: %v (stderr %q)", stdout.String(), err, stderr.String())
		}
	}
	return &result, code, stderr.String()
}

// Check runs every pair of kind k (each pair's Kind is set to it) and checks what diff says and
// how it exits; then that every row of k's effects table has a pair, but the provider settings'
// and the metadata's, which every kind shares.
func Check(t *testing.T, k kinds.Kind, pairs []Pair) {
	kind := Of(k)
	for _, p := range pairs {
		p.Kind = kind
		t.Run(p.Name, func(t *testing.T) {
			result, code, stderr := p.Diff(t)
			if code != p.Exit {
				t.Errorf("exit = %d, want %d (stderr %q)", code, p.Exit, stderr)
			}
			if p.Invalid {
				// The rule's refusal is said at the pair's field, as the stack input writes it.
				if !strings.Contains(stderr, "target."+p.Path+": ") {
					t.Errorf("stderr = %q, want the violated rule", stderr)
				}
				return
			}
			// A pair may change more than one field (autoscaling comes with its bounds); the one
			// it is about must be there with its effect.
			var found bool
			replaces, refuses := false, false
			for _, c := range result.Changes {
				replaces = replaces || c.Effect == effects.Replace
				refuses = refuses || c.Effect == effects.Refused
				if c.Reason == "" || !strings.Contains(c.Resource, "::") {
					t.Errorf("change %s has reason %q and resource %q, want both", c.Path, c.Reason, c.Resource)
				}
				if c.Path != p.Path {
					continue
				}
				found = true
				if c.Effect != p.Effect {
					t.Errorf("%s: effect %s, want %s (%s)", c.Path, c.Effect, p.Effect, c.Reason)
				}
				if p.Refusal != "" && c.Refusal != p.Refusal {
					t.Errorf("%s: refusal %q, want %q (%s)", c.Path, c.Refusal, p.Refusal, c.Reason)
				}
			}
			if !found {
				t.Errorf("changes = %+v, want one at %s", result.Changes, p.Path)
			}
			if result.Replaces != replaces || result.Refuses != refuses {
				t.Errorf("replaces = %t, refuses = %t; the changes say %t, %t", result.Replaces, result.Refuses, replaces, refuses)
			}
		})
	}
	covered := map[string]bool{}
	for _, p := range pairs {
		covered[p.Path] = true
	}
	for _, row := range k.Effects.Rows {
		if !covered[row.Path] && !strings.HasPrefix(row.Path, "providerConfig.") && !strings.HasPrefix(row.Path, "metadata.") {
			t.Errorf("no OLD/NEW pair for %s %s", k.Name, row.Path)
		}
	}
}
