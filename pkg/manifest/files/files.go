// Package files reads the files a command is given, as every command reads them: folders
// walked for YAML and JSON files (Expand), each file read once and bounded, and each of its
// manifests (YAML documents) named with the kind its head says (Reader). It knows kinds only by
// name, so that the command line, the deploy pipeline and any other way in read files the same
// way and look the kind up once, in their own list.
package files

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
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

// NotRegular tells whether the file was found in a folder and is no regular file, so it is
// skipped unread.
func (in Input) NotRegular() bool { return in.notRegular }

// MaxWalk bounds how many entries (files and folders) a walk of one folder given visits below
// it, the folder itself not counted: a fleet of 10,000 manifests, nested or not, is far under
// it, and a walk of / still ends with an error, not after minutes. MaxFilesEnv sets another.
const MaxWalk = 100000

// MaxFilesEnv, when set to a whole number, is the bound of a walk instead of MaxWalk.
const MaxFilesEnv = "CLUSTERPLANE_MAX_FILES"

// maxWalk is the bound of a walk: $CLUSTERPLANE_MAX_FILES, else MaxWalk.
func maxWalk() (int, error) {
	v := strings.TrimSpace(os.Getenv(MaxFilesEnv))
	if v == "" {
		return MaxWalk, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, errors.Errorf("%s=%q: want a whole number of files and folders a walk of a folder may visit, at least 1 (default %d)", MaxFilesEnv, v, MaxWalk)
	}
	return n, nil
}

// Expand turns the arguments into files: directories are walked for YAML and JSON files, in
// lexical order, skipping hidden folders, the folders of other tools (skippedDirs) and what a
// .gitignore at the walked folder's top ignores (see gitignore); "-" is standard input, at most once. A YAML or JSON name in a
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
		bound, err := maxWalk()
		if err != nil {
			return nil, err
		}
		visited := 0
		ignored := readGitignore(filepath.Join(arg, ".gitignore"))
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if path != arg {
				if visited++; visited > bound {
					return errors.Errorf("more than %d files and folders under it, the bound of a walk: name the folder of your manifests, or raise the bound with %s", bound, MaxFilesEnv)
				}
			}
			if err != nil {
				out = append(out, Input{File: path, err: err})
				return nil
			}
			rel, _ := filepath.Rel(arg, path)
			if d.IsDir() {
				if path != arg && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()] || ignored.match(rel, true)) {
					return filepath.SkipDir
				}
				return nil
			}
			if ignored.match(rel, false) {
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

// skippedDirs are folders of other tools' files, never of manifests: `npm install` fills
// node_modules with tsconfig.json and package.json files that are no manifests.
var skippedDirs = map[string]bool{"node_modules": true, "vendor": true, ".terraform": true}

// gitignore is the patterns of a .gitignore file at the top of a walked folder. Only simple
// patterns are understood: a name or a glob (*, ?, [...]) matches at any depth, one with a slash
// matches from the walked folder, a trailing slash matches folders only. Negations (!pattern)
// and ** are not supported: such lines are ignored, and .gitignore files in subfolders are not
// read, so a file they would exclude is still walked.
type gitignore []ignorePattern

type ignorePattern struct {
	glob     string
	anchored bool
	dirOnly  bool
}

// readGitignore reads the patterns of path; none when it cannot be read.
func readGitignore(path string) gitignore {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out gitignore
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") || strings.Contains(line, "**") {
			continue
		}
		p := ignorePattern{}
		if strings.HasSuffix(line, "/") {
			p.dirOnly, line = true, strings.TrimSuffix(line, "/")
		}
		if strings.Contains(line, "/") {
			p.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		if _, err := filepath.Match(line, ""); err != nil || line == "" {
			continue // a malformed glob matches nothing
		}
		p.glob = line
		out = append(out, p)
	}
	return out
}

// match tells whether the path rel (relative to the walked folder) is ignored.
func (g gitignore) match(rel string, dir bool) bool {
	rel = filepath.ToSlash(rel)
	for _, p := range g {
		if p.dirOnly && !dir {
			continue
		}
		name := rel
		if !p.anchored {
			name = rel[strings.LastIndex(rel, "/")+1:]
		}
		if ok, _ := filepath.Match(p.glob, name); ok {
			return true
		}
	}
	return false
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

// Document is one manifest of a file (one YAML document) and the kind its head names, one of
// the Reader's kinds. Data is the whole file with the other documents' lines blanked, so that
// positions are the file's.
type Document struct {
	File string
	Data []byte
	Kind string
}

// Reader reads files into documents.
type Reader struct {
	// Kinds are the names of the kinds a document may be. With one kind, a file named explicitly
	// is read as that kind whatever it says: a program binary checks the file it is given as its
	// own kind, which says best what is wrong with it.
	Kinds []string
	// Stdin is read for the file "-".
	Stdin io.Reader
}

// One reads one file that must hold one manifest: what every command that takes one manifest
// takes a file to be. A file holding several manifests (documents separated by ---) is an error
// here; ReadAll reads each.
func (r Reader) One(in Input) (d Document, skipped bool, err error) {
	docs, skipped, err := r.ReadAll(in)
	switch {
	case err != nil || skipped:
		return d, skipped, err
	case len(docs) > 1:
		return d, false, errors.Errorf("%s: holds %d manifests (documents separated by ---); this command takes one: "+
			"put each in a file of its own", in.File, len(docs))
	}
	return docs[0], false, nil
}

// ReadAll reads one file (once: it may be a pipe) and names, for each of its manifests (YAML
// documents), the kind it names. A file found in a directory that does not claim
// to be a Clusterplane manifest or stack input is skipped; a file named explicitly, an empty
// one, or one that is not YAML at all, is an error. A file with several documents is skipped
// only when none of them claims to be one.
func (r Reader) ReadAll(in Input) (manifests []Document, skipped bool, err error) {
	if in.err != nil {
		return nil, false, in.err
	}
	if in.notRegular {
		return nil, true, nil
	}
	var data []byte
	if in.Explicit {
		data, err = stackinput.ReadFrom(in.File, r.Stdin)
	} else {
		data, err = readRegular(in.File)
	}
	if err != nil {
		return nil, false, err
	}
	docs := stackinput.Documents(data)
	var errs []string
	for _, doc := range docs {
		m, skip, err := r.document(in, doc, len(docs) > 1)
		switch {
		case err != nil:
			errs = append(errs, err.Error())
		case !skip:
			manifests = append(manifests, m)
		}
	}
	switch {
	case errs != nil && (len(docs) == 1 || in.Explicit || manifests != nil || claims(docs)):
		return nil, false, errors.New(strings.Join(errs, "\n"))
	case manifests == nil:
		// Other YAML in a directory (a Kubernetes file of several documents), as validate skips it.
		return nil, true, nil
	}
	return manifests, false, nil
}

// claims tells whether any document claims to be a Clusterplane manifest or stack input.
func claims(docs [][]byte) bool {
	for _, doc := range docs {
		if head, err := stackinput.ReadHead(doc); err == nil && head.Claimed() {
			return true
		}
	}
	return false
}

// document names the kind of one document.
func (r Reader) document(in Input, data []byte, several bool) (Document, bool, error) {
	if len(r.Kinds) == 1 && in.Explicit {
		// A program binary checks a file it is given as its own kind: the check says best what is
		// wrong with it, with positions, even when the file names no kind or another.
		return Document{in.File, data, r.Kinds[0]}, false, nil
	}
	head, err := stackinput.ReadHead(data)
	var syntax *stackinput.Error
	switch {
	case errors.Is(err, stackinput.ErrEmpty):
		return Document{}, false, errors.Errorf("%s: %s", in.File, "holds no manifest: the file is empty or only comments")
	case errors.Is(err, stackinput.ErrNotAMapping) && !in.Explicit:
		return Document{}, true, nil
	case errors.As(err, &syntax):
		for i := range syntax.Problems {
			syntax.Problems[i].File = in.File
		}
		return Document{}, false, syntax
	case err != nil:
		return Document{}, false, errors.Wrap(err, in.File)
	}
	kind, err := r.kindNamed(in.File, data, head)
	switch {
	case err != nil && !in.Explicit && !head.Claimed() && !several:
		return Document{}, true, nil
	case err != nil:
		return Document{}, false, err
	}
	return Document{in.File, data, kind}, false, nil
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

// kindNamed returns the kind a file's head names, one of the Reader's; on failure the error names
// the file and, where the kind is written, its line: an unknown kind with the nearest one, a kind
// of the other cloud under this cloud's apiVersion as the mistake it most likely is.
func (r Reader) kindNamed(file string, data []byte, head stackinput.Head) (string, error) {
	named := ""
	for _, k := range r.Kinds {
		if head.Kind == k {
			named = k
		}
	}
	if head.Kind == "" {
		return "", errors.Errorf("%s: names no kind; a manifest (or a stack input's target) has `kind:` one of %s",
			file, strings.Join(r.Kinds, ", "))
	}
	at := file
	if line, column := stackinput.KindAt(data); line > 0 {
		at = fmt.Sprintf("%s:%d:%d", file, line, column)
	}
	group := cloudOf(head.APIVersion)
	if named != "" && (group == "" || strings.HasPrefix(strings.ToLower(named), group)) {
		return named, nil
	}
	if named != "" {
		// apiVersion and kind disagree on the cloud, and either may be the mistake: the fields
		// (not read here) say which cloud was meant, so both ways out are named, each with its
		// cloud (a DigitalOcean manifest under civo.clusterplane.dev/v1 wants the apiVersion
		// mended, a Civo one the kind).
		hint := ""
		if same := r.kindOfCloud(group, named); same != "" {
			shape := same[len(group):]
			namedCloud, sameCloud := named[:len(named)-len(shape)], same[:len(group)]
			_, version, _ := strings.Cut(head.APIVersion, ".clusterplane.dev/")
			hint = fmt.Sprintf(": set apiVersion: %s.clusterplane.dev/%s if the manifest is for %s, or kind: %s if it is for %s",
				strings.ToLower(namedCloud), version, namedCloud, same, sameCloud)
		}
		return "", errors.Errorf("%s: kind: %s is not a kind of %s%s", at, named, stackinput.Quote(head.APIVersion), hint)
	}
	hint := "want one of " + strings.Join(r.Kinds, ", ")
	if near := r.nearestKind(head.Kind, group); near != "" {
		hint = "did you mean " + near + "?"
	}
	return "", errors.Errorf("%s: kind: unknown kind %s; %s", at, stackinput.Quote(head.Kind), hint)
}

// cloudOf is the cloud an apiVersion names ("civo" for civo.clusterplane.dev/v1), "" for none.
func cloudOf(apiVersion string) string {
	group, _, ok := strings.Cut(apiVersion, ".clusterplane.dev/")
	if !ok {
		return ""
	}
	return strings.ToLower(group)
}

// kindOfCloud is the kind of cloud that has the shape of kind (DigitalOceanKubernetesCluster for
// CivoKubernetesCluster and digitalocean), "" when there is none.
func (r Reader) kindOfCloud(cloud, kind string) string {
	for _, other := range r.Kinds {
		lower := strings.ToLower(other)
		if !strings.HasPrefix(lower, cloud) {
			continue
		}
		shape := other[len(cloud):]
		if strings.HasSuffix(kind, shape) {
			return other
		}
	}
	return ""
}

// nearestKind is the known kind nearest to kind (of the apiVersion's cloud when it names one),
// or one that contains every word of it; "" when none is near.
func (r Reader) nearestKind(kind, cloud string) string {
	best, bestDistance := "", min(len(kind)/3+2, 8)
	for _, name := range r.Kinds {
		if cloud != "" && !strings.HasPrefix(strings.ToLower(name), cloud) {
			continue
		}
		if d := apikinds.Distance(strings.ToLower(kind), strings.ToLower(name)); d < bestDistance {
			best, bestDistance = name, d
		}
	}
	if best != "" {
		return best
	}
	// A kind shortened by a word (DigitalOceanCluster) is far by letters but holds every word.
	for _, name := range r.Kinds {
		if (cloud == "" || strings.HasPrefix(strings.ToLower(name), cloud)) && hasWords(name, kind) {
			return name
		}
	}
	return ""
}

// hasWords tells whether name holds every capitalised word of kind, in order.
func hasWords(name, kind string) bool {
	rest := name
	word := ""
	flush := func() bool {
		if word == "" {
			return true
		}
		i := strings.Index(strings.ToLower(rest), strings.ToLower(word))
		if i < 0 {
			return false
		}
		rest, word = rest[i+len(word):], ""
		return true
	}
	for _, c := range kind {
		if c >= 'A' && c <= 'Z' && !flush() {
			return false
		}
		word += string(c)
	}
	return len(kind) >= 4 && flush()
}
