package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/pkg/errors"
)

// stackManifest is a manifest of a file and the stack it deploys, <kind>/<stack>
// (reference.KeyOf), by which diff pairs the manifests of two files.
type stackManifest struct {
	Manifest
	stack string
}

// stacksOf keys each manifest by its stack. A manifest that is invalid, or a second manifest of
// one stack, is an error: diff cannot say which manifest of the other file it changes.
func stacksOf(manifests []Manifest) ([]stackManifest, error) {
	var out []stackManifest
	seen := map[string]string{}
	for _, m := range manifests {
		if m.Program == nil {
			return nil, errors.Errorf("%s: no program reads this manifest's kind", m.File.Name)
		}
		input, err := m.Program.Parse(m.File)
		if err != nil {
			return nil, err
		}
		stack := reference.KeyOf(input)
		if first, ok := seen[stack]; ok {
			return nil, errors.Errorf("%s holds two manifests of stack %s (%s and this one): diff pairs the manifests of two files by their stacks",
				m.File.Name, stack, first)
		}
		seen[stack] = m.File.Name
		out = append(out, stackManifest{m, stack})
	}
	return out, nil
}

// stackChange is one stack's part of a diff of files of several manifests, as -o json writes
// it: Change is "compared" (Diff is the diff of OLD's manifest and NEW's, which may be no
// change), "added" (Plan is what NEW's creates) or "removed".
type stackChange struct {
	Stack  string          `json:"stack"`
	Change string          `json:"change"`
	Diff   json.RawMessage `json:"diff,omitempty"`
	Plan   json.RawMessage `json:"plan,omitempty"`
}

// diffMany diffs files of several manifests (a cluster and its pool, as docs/manifests.md
// keeps them) stack by stack: each manifest of NEW with OLD's of the same stack, a manifest of
// NEW only planned as added, one of OLD only said removed. The text is each stack's heading and
// its diff; -o json is a list of stackChange. It exits with the first stack's failing code.
func (a *App) diffMany(olds, news []Manifest, pol *policy.Policy, format string, allowReplace bool) int {
	oldStacks, err := stacksOf(olds)
	if err == nil {
		var newStacks []stackManifest
		if newStacks, err = stacksOf(news); err == nil {
			return a.diffStacks(oldStacks, newStacks, pol, format, allowReplace)
		}
	}
	fmt.Fprintln(a.Stderr, err)
	return exitcode.Invalid
}

func (a *App) diffStacks(olds, news []stackManifest, pol *policy.Policy, format string, allowReplace bool) int {
	code := exitcode.OK
	var changes []stackChange
	// each runs one stack's part, its output under the stack's heading (text, "== STACK" and
	// what happens to it) or into its stackChange (json).
	each := func(stack, change, heading string, run func(*App) int) {
		sub := *a
		var out bytes.Buffer
		if format == "json" {
			sub.Stdout = &out
		} else {
			fmt.Fprintf(a.Stdout, "== %s%s\n", stack, heading)
		}
		if c := run(&sub); code == exitcode.OK {
			code = c
		}
		if format == "json" {
			sc := stackChange{Stack: stack, Change: change}
			if raw := bytes.TrimSpace(out.Bytes()); json.Valid(raw) && len(raw) > 0 {
				if change == "added" {
					sc.Plan = raw
				} else {
					sc.Diff = raw
				}
			}
			changes = append(changes, sc)
		}
	}
	for _, n := range news {
		i := indexOfStack(olds, n.stack)
		if i < 0 {
			each(n.stack, "added", fmt.Sprintf(": added, in %s only; it creates:", n.File.Name),
				func(sub *App) int { return sub.planAdded(n.Manifest, pol, format) })
			continue
		}
		o := olds[i]
		each(n.stack, "compared", "", func(sub *App) int {
			results, err := CheckPolicy(pol, n.Program, n.File, &o.File)
			if err != nil {
				fmt.Fprintln(sub.Stderr, err)
				return exitcode.Invalid
			}
			return sub.diffWithPolicy(results, format, func(stdout io.Writer) int {
				return o.Program.Diff(o.File, n.File, format, allowReplace, stdout, sub.Stderr)
			})
		})
	}
	for _, o := range olds {
		if indexOfStack(news, o.stack) < 0 {
			each(o.stack, "removed", fmt.Sprintf(": removed, in %s only: diff plans no removal (destroy removes a stack)", o.File.Name),
				func(*App) int { return exitcode.OK })
		}
	}
	if format == "json" {
		writeJSON(a.Stdout, changes)
	}
	return code
}

// planAdded is what a manifest of NEW only creates: its policy (with no manifest it replaces),
// then its plan.
func (a *App) planAdded(m Manifest, pol *policy.Policy, format string) int {
	results, err := CheckPolicy(pol, m.Program, m.File, nil)
	if err != nil {
		fmt.Fprintln(a.Stderr, err)
		return exitcode.Invalid
	}
	return a.diffWithPolicy(results, format, func(stdout io.Writer) int {
		return m.Program.Plan(m.File, format, stdout, a.Stderr)
	})
}

func indexOfStack(manifests []stackManifest, stack string) int {
	for i, m := range manifests {
		if m.stack == stack {
			return i
		}
	}
	return -1
}
