package main

import (
	"io"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgradecmd"
	"github.com/clusterplane/clusterplane/pkg/describe/explain"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
)

// factory is what the commands need, made once per run, in the style of gh's cmdutil.Factory:
// the streams, the kinds, how files are read, and the engine's backend, opened the first time a
// command asks for it. Each command is built from it by its own constructor (newCmdUp and so on),
// which takes a run function tests can pass instead of the real one.
type factory struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	kinds          kinds.List
	// explainer documents the kinds' fields (explain).
	explainer *explain.Explainer
	// reader reads the files given, over the same standard input, naming each manifest's kind.
	reader files.Reader
	// deploy is how the deploy commands reach the engine.
	deploy deployEnv
	// outMu serialises the progress of stacks deployed in parallel; askMu their questions.
	outMu, askMu sync.Mutex
}

func newFactory(list kinds.List, stdin io.Reader, stdout, stderr io.Writer) *factory {
	f := &factory{Stdin: stdin, Stdout: stdout, Stderr: stderr, kinds: list,
		explainer: explain.New(list.Table, list.StackInputs()...)}
	f.reader = files.Reader{Kinds: f.kinds.Names(), Stdin: stdin}
	return f
}

// upgradeEnv is what the upgrade commands (pkg/deploy/upgradecmd) take from the factory: they
// read files, open the backend, redact and exit as the deploy commands do.
func (f *factory) upgradeEnv() upgradecmd.Env {
	return upgradecmd.Env{Stdout: f.Stdout, Stderr: f.Stderr, Files: f.files(&deployOptions{}),
		Targets: func(files []string) ([]deploytarget.Target, error) { return f.targets(&deployOptions{files: files}) },
		Backend: func(secrets string) (stackstate.Backend, error) {
			return f.backend(&deployOptions{secretsProvider: secrets})
		},
		Exit:   func(err error) error { return f.exit(nil, err) },
		Redact: func(s string) string { return f.redactor().String(s) }}
}
