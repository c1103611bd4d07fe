package deploytarget

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pkg/errors"
)

// Files turns the files and folders a command is given into targets, as every deploy command
// reads them: each file once, every manifest of it (--- documents) a target of its own.
type Files struct {
	// Reader reads each file and names the kind of each of its manifests.
	Reader files.Reader
	// Kinds are the kinds a manifest may be, looked up by the name the Reader gives.
	Kinds kinds.List
	// Stack, when set, names the stack of the one manifest given (--stack).
	Stack string
	// One is set for a command that acts on the one manifest of the one file it takes.
	One bool
	// Text, when set, is told the text of each target read, e.g. for the lines of the fields a
	// policy names.
	Text func(t Target, data []byte)
	// Offline is set for a command that reaches no cloud (export): the sandbox's refusal of a
	// provider config's own token or API URL is left to the commands that deploy, so that such
	// a command says its own reason.
	Offline bool
}

// ProblemsError is every problem of every file given, found before any stack is touched: each is
// said on a line of its own, and the command exits as for invalid input.
type ProblemsError struct {
	Problems []error
}

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Targets reads and validates every file (once each) into targets. Every problem of every file is
// in the *ProblemsError returned, so that all are said before any stack is touched; the other
// errors are mistakes of the command line (several manifests where one is taken, --stack with
// several).
func (f Files) Targets(paths []string) ([]Target, error) {
	inputs, err := files.Expand(paths)
	if err != nil {
		return nil, err
	}
	byFile := f.readEach(inputs)
	var out []Target
	var problems []error
	var read []reference.Manifest // out's, for the checks across manifests
	for i, in := range inputs {
		if byFile[i].skipped {
			continue // other YAML in a directory, as validate skips it
		}
		for _, m := range byFile[i].manifests {
			if m.err != nil {
				problems = append(problems, m.err)
				continue
			}
			m.target.File = in.File
			if f.Text != nil {
				f.Text(m.target, m.data)
			}
			out = append(out, m.target)
			read = append(read, reference.Manifest{File: m.file, Data: m.data, Input: m.target.Input})
		}
	}
	problems = append(problems, f.across(read)...)
	if problems != nil {
		return nil, &ProblemsError{Problems: problems}
	}
	if f.One && len(out) > 1 {
		// A file may hold several manifests (--- documents); kubeconfig and adopt act on one.
		return nil, errors.Errorf("%s holds %d manifests: this command takes one, put it in a file of its own", strings.Join(paths, " "), len(out))
	}
	if f.Stack != "" && len(out) > 1 {
		// Counted after loading: a directory may hold several manifests.
		return nil, errors.Errorf("--stack names the stack of one manifest, and %d were given", len(out))
	}
	if len(out) == 0 {
		return nil, &ProblemsError{Problems: []error{fmt.Errorf("no manifest or stack input in %s", strings.Join(paths, " "))}}
	}
	return out, nil
}

// readFile is one file of Targets read: its manifests' targets, or why it was not read.
type readFile struct {
	skipped   bool
	manifests []readManifest
}

type readManifest struct {
	file   string
	data   []byte
	target Target
	err    error
}

// readEach reads and parses each of inputs (readFile, in their order), on as many goroutines as
// the process has processors: a fleet's status reads ten thousand manifests before its first
// stack. Standard input is read on one, as it is read once.
func (f Files) readEach(inputs []files.Input) []readFile {
	workers := runtime.GOMAXPROCS(0)
	for _, in := range inputs {
		if in.File == "-" {
			workers = 1
		}
	}
	out := make([]readFile, len(inputs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(inputs)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(inputs); i = int(next.Add(1)) - 1 {
				out[i] = f.readFile(inputs[i])
			}
		})
	}
	wg.Wait()
	return out
}

// readFile reads one file: each of its manifests (--- documents) a target of its own.
func (f Files) readFile(in files.Input) readFile {
	manifests, skipped, err := f.Reader.ReadAll(in)
	switch {
	case skipped:
		return readFile{skipped: true}
	case err != nil:
		return readFile{manifests: []readManifest{{err: err}}}
	}
	out := readFile{manifests: make([]readManifest, len(manifests))}
	for i, m := range manifests {
		k, _ := f.Kinds.ByName(m.Kind)
		t, err := Read(k, m.File, m.Data, f.Stack)
		out.manifests[i] = readManifest{file: m.File, data: m.Data, target: t, err: err}
	}
	return out
}

// across are the problems of manifests read together that no one manifest shows: as validate
// says them, a pool given with its cluster must be in the cluster's region (or Civo answers 404
// once the cluster is made), and inside the sandbox no provider config names a token or API URL
// of its own.
func (f Files) across(read []reference.Manifest) []error {
	problems := regionProblems(read)
	for _, m := range read {
		if p := sandboxed(m); p != nil && !f.Offline {
			problems = append(problems, &stackinput.Error{Problems: []stackinput.Problem{*p}})
		}
	}
	return problems
}

// Manifest is a manifest read already, as a service builds one from a stored object without a
// file: its target and its text (for the lines of the fields a check names).
type Manifest struct {
	Target Target
	Data   []byte
}

// Read are the targets of manifests read already, with the checks across them Targets makes of
// files: every problem is in the *ProblemsError returned.
func (f Files) Read(manifests []Manifest) ([]Target, error) {
	targets := make([]Target, len(manifests))
	read := make([]reference.Manifest, len(manifests))
	for i, m := range manifests {
		targets[i] = m.Target
		if f.Text != nil {
			f.Text(m.Target, m.Data)
		}
		read[i] = reference.Manifest{File: m.Target.File, Data: m.Data, Input: m.Target.Input}
	}
	if problems := f.across(read); problems != nil {
		return nil, &ProblemsError{Problems: problems}
	}
	return targets, nil
}

// Neighbours are the targets of the manifests in the folders of files (a folder given, or the
// folder of a file given), standard input aside. A file that is no valid manifest is no
// neighbour: the command does not act on it, it only asks who references what.
func (f Files) Neighbours(paths []string) ([]Target, error) {
	var folders []string
	seen := map[string]bool{}
	for _, file := range paths {
		dir := file
		if info, err := os.Stat(file); err != nil || !info.IsDir() {
			dir = filepath.Dir(file)
		}
		if file != stackinput.Stdin && !seen[dir] {
			seen[dir] = true
			folders = append(folders, dir)
		}
	}
	inputs, err := files.Expand(folders)
	if err != nil {
		return nil, err
	}
	var neighbours []Target
	for _, in := range inputs {
		manifests, skipped, err := f.Reader.ReadAll(in)
		if skipped || err != nil {
			continue // not a manifest, or one this command does not need to read
		}
		for _, m := range manifests {
			k, _ := f.Kinds.ByName(m.Kind)
			if n, err := Read(k, m.File, m.Data, ""); err == nil {
				n.File = in.File
				neighbours = append(neighbours, n)
			}
		}
	}
	return neighbours, nil
}

// DestroyGuard refuses to destroy a target that a manifest beside files references
// (StillReferenced). Only the folders of the files given are read: the backend cannot say which
// stacks read another's outputs.
func (f Files) DestroyGuard(ctx context.Context, b stackstate.Backend, paths []string, targets []Target) (map[string]error, error) {
	neighbours, err := f.Neighbours(paths)
	if err != nil {
		return nil, err
	}
	return StillReferenced(ctx, b, targets, neighbours)
}

// sandboxed refuses, inside the clusterplane sandbox, a stack input whose provider config names a
// token or API URL of its own, at its line: the stack would reach past the sandbox's loopback
// clouds. Every request refuses it too (provider.Resolve); this says so before any stack opens.
func sandboxed(m reference.Manifest) *stackinput.Problem {
	cloud, token, apiURL, ok := stackinput.ProviderConfig(m.Input)
	if !ok {
		return nil
	}
	err := cloud.Sandboxed(token, apiURL)
	if err == nil {
		return nil
	}
	field := "provider_config.api_token"
	if token == "" {
		field = "provider_config.api_url"
	}
	p := stackinput.Problem{File: m.File, Path: validation.Camel(field),
		RuleID: "sandbox.provider_config", Message: err.Error()}
	if line, column, written, ok := stackinput.Where(m.Data, m.Input, field); ok {
		p.Line, p.Column, p.Path = line, column, written
	}
	return &p
}
