package cli

import (
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

// Manifest is one manifest of a file (one YAML document) and the program of its kind. File.Data
// is the whole file with the other documents' lines blanked, so that positions are the file's.
type Manifest struct {
	File    program.File
	Program Program
}

// Files is the reader of the files this command line is given, over its programs' kinds and its
// standard input.
func (a *App) Files() files.Reader {
	return files.Reader{Kinds: a.KindNames(), Stdin: a.Stdin}
}

// LoadAll reads one file (once: it may be a pipe) and finds, for each of its manifests, the
// program of the kind it names (files.Reader.ReadAll says which files are skipped).
func (a *App) LoadAll(in files.Input) (manifests []Manifest, skipped bool, err error) {
	docs, skipped, err := a.Files().ReadAll(in)
	for _, d := range docs {
		manifests = append(manifests, Manifest{program.File{Name: d.File, Data: d.Data}, a.Program(d.Kind)})
	}
	return manifests, skipped, err
}

// ReadFile reads one file named on the command line ("-" for standard input) once, with the
// program of its kind; a file of several manifests is an error.
func (a *App) ReadFile(file string) (program.File, Program, error) {
	d, _, err := a.Files().One(files.Input{File: file, Explicit: true})
	if err != nil {
		return program.File{}, nil, err
	}
	return program.File{Name: d.File, Data: d.Data}, a.Program(d.Kind), nil
}
