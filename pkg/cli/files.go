package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
)

// Input is a file a command was given; Explicit when it was named rather than found in a
// directory.
type Input struct {
	File     string
	Explicit bool
	// err is why a directory could not be walked.
	err error
	// notRegular marks a file found in a directory that is a named pipe, a device or a socket:
	// reading one could block forever (a pipe nobody writes) or never end (a device), so it is
	// skipped, not read.
	notRegular bool
}

// MaxWalk bounds how many entries a directory walk visits: a folder of manifests holds far
// fewer, and a walk of / must end with an error, not after minutes.
const MaxWalk = 10000

// Expand turns the arguments into files: directories are walked (hidden ones skipped) for YAML
// and JSON files, in lexical order; "-" is standard input, at most once. A YAML or JSON name in a
// directory that is no regular file (nor a link to one) is listed to be skipped unread; a file
// named explicitly may be a pipe, as `<(git show ...)` makes, which stackinput.ReadFrom allows.
func Expand(args []string) ([]Input, error) {
	var out []Input
	stdin := false
	for _, arg := range args {
		if arg == stackinput.Stdin {
			if stdin {
				return nil, errors.New("standard input (-) given twice")
			}
			stdin = true
			out = append(out, Input{File: arg, Explicit: true})
			continue
		}
		info, err := os.Stat(arg)
		if err != nil || !info.IsDir() {
			out = append(out, Input{File: arg, Explicit: true})
			continue
		}
		visited := 0
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if visited++; visited > MaxWalk {
				return errors.Errorf("more than %d files and folders: name the folder of your manifests", MaxWalk)
			}
			if err != nil {
				out = append(out, Input{File: path, err: err})
				return nil
			}
			if d.IsDir() {
				if path != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				out = append(out, Input{File: path, notRegular: !regular(path, d)})
			}
			return nil
		})
		if err != nil {
			return nil, errors.Wrap(err, arg)
		}
	}
	return out, nil
}

// regular says whether a directory entry is a regular file, or a link to one.
func regular(path string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	// A broken link is left for the read to report.
	return err != nil || info.Mode().IsRegular()
}

// SkipReason is what validate says of a file it does not check.
const SkipReason = "not a Clusterplane manifest or stack input"

// NotRegularReason is what validate says of a file in a directory it does not read.
const NotRegularReason = "not a regular file (a named pipe, a device or a socket), so not read"

// Load reads one file (once: it may be a pipe) and finds the program of the kind it names: what
// every command takes a file to be. A file found in a directory that does not claim to be a
// Clusterplane manifest or stack input is skipped; a file named explicitly, or one that is not
// YAML at all, is an error.
func (a *App) Load(in Input) (f program.File, p Program, skipped bool, err error) {
	if in.err != nil {
		return f, nil, false, in.err
	}
	if in.notRegular {
		return f, nil, true, nil
	}
	var data []byte
	if in.Explicit {
		data, err = stackinput.ReadFrom(in.File, a.Stdin)
	} else {
		data, err = readRegular(in.File)
	}
	if err != nil {
		return f, nil, false, err
	}
	if len(a.Programs) == 1 && in.Explicit {
		// A program binary checks a file it is given as its own kind: the check says best what is
		// wrong with it, with positions, even when the file names no kind or another.
		return program.File{Name: in.File, Data: data}, a.Programs[0], false, nil
	}
	head, err := stackinput.ReadHead(data)
	switch {
	case errors.Is(err, stackinput.ErrNotAMapping) && !in.Explicit:
		return f, nil, true, nil
	case err != nil:
		return f, nil, false, errors.Wrap(err, in.File)
	}
	p, err = a.programNamed(in.File, head)
	switch {
	case err != nil && !in.Explicit && !head.Claimed():
		return f, nil, true, nil
	case err != nil:
		return f, nil, false, err
	}
	return program.File{Name: in.File, Data: data}, p, false, nil
}

// readRegular reads a file found in a directory, refusing anything that is not a regular file
// when opened: Expand looked at it before, but a name can be replaced in between, and opening a
// named pipe to read blocks until a writer comes, so it is opened without blocking and checked.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileError(path, "cannot be read: "+reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileError(path, "cannot be read: "+reason(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fileError(path, "is not a regular file: a file in a directory must be one to be read")
	}
	data, err := io.ReadAll(io.LimitReader(f, stackinput.MaxBytes+1))
	if err != nil {
		return nil, fileError(path, "cannot be read: "+reason(err))
	}
	if len(data) > stackinput.MaxBytes {
		return nil, fileError(path, fmt.Sprintf("is larger than %d MiB, the limit for a stack input", stackinput.MaxBytes>>20))
	}
	return data, nil
}

// fileError is a problem with a file as a whole, as stackinput.ReadFrom reports one.
func fileError(file, message string) *stackinput.Error {
	return &stackinput.Error{Problems: []stackinput.Problem{{File: file, RuleID: "file", Message: message}}}
}

// reason is an OS error without the path, which the problem names already.
func reason(err error) string {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	return err.Error()
}

// programNamed returns the program of the kind a file's head names; on failure the error names
// the file.
func (a *App) programNamed(file string, head stackinput.Head) (Program, error) {
	for _, p := range a.Programs {
		if head.Kind == p.Kind() {
			return p, nil
		}
	}
	if head.Kind == "" {
		return nil, errors.Errorf("%s: names no kind; a manifest (or a stack input's target) has `kind:` one of %s",
			file, strings.Join(a.KindNames(), ", "))
	}
	return nil, errors.Errorf("%s: unknown kind %s; want one of %s", file, stackinput.Quote(head.Kind), strings.Join(a.KindNames(), ", "))
}

// ReadFile reads one file named on the command line ("-" for standard input) once, with the
// program of its kind.
func (a *App) ReadFile(file string) (program.File, Program, error) {
	f, p, _, err := a.Load(Input{File: file, Explicit: true})
	return f, p, err
}
