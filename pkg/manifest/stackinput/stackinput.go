// Package stackinput finds, reads, parses and validates the stack input a program deploys: a
// manifest and the provider credentials to deploy it with. It is the one front door for files,
// standard input and the text of a program's `stackInput` config value (which
// pkg/pulumi/programinput reads): bounded, strict, and it reports every mistake of a file at
// once, each with its line, column and the path as the file writes it.
package stackinput

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode"

	_ "github.com/clusterplane/clusterplane/apis/clusterplane/all"
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Where a stack input is looked for besides a program's config (pkg/pulumi/programinput).
const (
	// FileEnv names a stack-input file.
	FileEnv = "STACK_INPUT_FILE"
	// Stdin is the file name that stands for standard input.
	Stdin = "-"
)

// MaxBytes is the largest stack input read: real ones are a few KiB.
const MaxBytes = 4 << 20

// DefaultFiles are read from the working directory when neither the config nor FileEnv names a
// stack input.
var DefaultFiles = []string{"stack-input.json", "stack-input.yaml", "stack-input.yml"}

// LoadFile fills input from the YAML or JSON file at path ("-" for standard input) and
// validates it.
func LoadFile(path string, input proto.Message) error {
	data, err := Read(path)
	if err != nil {
		return err
	}
	return Parse(data, path, input)
}

// Read reads a stack-input file of at most MaxBytes: a regular file, a pipe (`<(git show ...)`)
// or standard input ("-"). Devices, directories and sockets are refused, so a mistyped path
// can neither block nor fill memory.
func Read(path string) ([]byte, error) { return ReadFrom(path, os.Stdin) }

// ReadFrom is Read with stdin standing for standard input.
func ReadFrom(path string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if path != Stdin {
		info, err := os.Stat(path)
		if err != nil {
			return nil, fileError(path, "cannot be read: "+reason(err))
		}
		if mode := info.Mode(); !mode.IsRegular() && mode&os.ModeNamedPipe == 0 {
			return nil, fileError(path, "is not a regular file or a pipe")
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fileError(path, "cannot be read: "+reason(err))
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fileError(path, "cannot be read: "+reason(err))
	}
	if len(data) > MaxBytes {
		return nil, fileError(path, "is larger than 4 MiB, the limit for a stack input")
	}
	return data, nil
}

func fileError(file, message string) *Error {
	return &Error{Problems: []Problem{{File: file, RuleID: "file", Message: message}}}
}

// reason is an OS error without the path, which the problem names already.
func reason(err error) string {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	return err.Error()
}

// Parse fills input from YAML or JSON text and validates it. The text is either a full stack
// input (target, providerConfig) or a bare manifest (apiVersion, kind, metadata, spec), whose
// provider config then comes from the environment. It returns nil or an *Error with every
// problem of the text, parse and rule problems together, sorted by position; paths are the
// text's own (a bare manifest's start at spec, a stack input's at target). source names the text.
func Parse(data []byte, source string, input proto.Message) error {
	if input == nil {
		return errors.New("stackinput: no message to fill")
	}
	proto.Reset(input)
	d := &decoder{file: source, at: map[string]position{}}
	root, problem := document(data, source)
	if problem != nil {
		return &Error{Problems: []Problem{*problem}}
	}
	checked := input
	if isManifest(root) {
		m := input.ProtoReflect()
		fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)
		if fd == nil {
			return errors.New("stackinput: the message to fill is not a stack input")
		}
		checked = m.Mutable(fd).Message().Interface()
	}
	d.root = checked.ProtoReflect().Descriptor()
	d.message(root, checked.ProtoReflect(), "", "")
	parsed := len(d.problems)
	for _, v := range validation.Violations(validation.Validate(checked)) {
		// A value that could not be read leaves its field unset, and so does a field whose key
		// was misspelt or misplaced; its rules would only repeat the parse problem.
		if p := d.violation(v, root, checked); !coveredBy(p, d.problems[:parsed]) && !d.explained(p) {
			d.problems = append(d.problems, p)
		}
	}
	if len(d.problems) == 0 {
		return nil
	}
	// A manifest of another kind breaks every rule of this one; only the mismatch is news.
	for _, p := range d.problems {
		if p.RuleID == "string.const" && strings.HasSuffix(p.Path, "kind") && p.Hint != "" {
			return &Error{Problems: []Problem{p}}
		}
	}
	e := &Error{Problems: d.problems}
	e.sort()
	return e
}

// document parses the one YAML document of data.
func document(data []byte, source string) (*yaml.Node, *Problem) {
	if len(data) > MaxBytes {
		return nil, &Problem{File: source, RuleID: "file", Message: "is larger than 4 MiB, the limit for a stack input"}
	}
	empty := &Problem{File: source, RuleID: "file.empty", Message: "holds no manifest: the file is empty or only comments",
		Hint: "a manifest starts with apiVersion, kind, metadata and spec"}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, empty
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, empty
	} else if err != nil {
		return nil, syntaxProblem(data, source, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, syntaxProblem(data, source, err)
		}
		// The clusterplane command splits a file into its documents (Documents); a stack input
		// read by a program is one.
		return nil, &Problem{File: source, Line: next.Line, Column: 1, RuleID: "yaml.documents",
			Message: "a second document (after ---) is not allowed here", Hint: fmt.Sprintf("a stack input is one document; a file of manifests holds at most %d", MaxDocuments)}
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root = doc.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" && root.Value == "" {
		return nil, empty // only markers (`---`) and comments: nothing was written
	}
	if root.Kind != yaml.MappingNode || root.Anchor != "" || root.Style&yaml.TaggedStyle != 0 {
		return nil, &Problem{File: source, Line: root.Line, Column: root.Column, RuleID: "yaml.type",
			Message: "must be a mapping with either target or apiVersion, kind, metadata and spec at the top"}
	}
	return root, nil
}

var (
	yamlLine = regexp.MustCompile(`line (\d+)`)
	// quoted is anything the YAML library quotes from the text: it could be a token.
	quoted = regexp.MustCompile("(\"[^\"]*\"|'[^']*'|`[^`]*`)")
)

// syntaxError is the line and the words of a YAML syntax error, without any text it quotes.
func syntaxError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		for _, c := range m[1] {
			line = line*10 + int(c-'0')
		}
		msg = strings.TrimSpace(msg[strings.Index(msg, m[0])+len(m[0]):])
		msg = strings.TrimPrefix(msg, ": ")
	}
	return line, "not valid YAML: " + quoted.ReplaceAllStringFunc(msg, func(q string) string {
		// One quoted character of YAML's syntax (did not find expected ',' or ']') is no token.
		if inner := []rune(q[1 : len(q)-1]); len(inner) == 1 && unicode.IsPunct(inner[0]) {
			return q
		}
		return "(text)"
	})
}

// CloudName is the manifest's field that names input's cluster or pool in the cloud, as a
// manifest writes it ("spec.clusterName", "spec.nodePoolName"); "" for a kind without one.
func CloudName(input proto.Message) string {
	spec := apikinds.Target(input).ProtoReflect().Descriptor().Fields().ByJSONName(kindfield.TargetSpec)
	if spec == nil || spec.Message() == nil {
		return ""
	}
	if fd := cloudNameField(spec.Message()); fd != nil {
		return "spec." + fd.JSONName()
	}
	return ""
}

func isManifest(root *yaml.Node) bool {
	keys := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		keys[root.Content[i].Value] = true
	}
	for _, key := range []string{"target", "providerConfig", "provider_config"} {
		if keys[key] {
			return false
		}
	}
	for _, key := range []string{"apiVersion", "api_version", "kind", "metadata", "spec"} {
		if keys[key] {
			return true
		}
	}
	return false
}

// violation places a broken rule at the field it names (or the nearest written parent) with the
// path as the file writes it.
func (d *decoder) violation(v validation.Violation, root *yaml.Node, checked proto.Message) Problem {
	p := Problem{File: d.file, Line: root.Line, Column: root.Column, RuleID: v.RuleID, Message: v.Message, Hint: v.Hint}
	field := v.Field
	rest := ""
	for field != "" {
		if at, ok := d.at[field]; ok {
			p.Line, p.Column, p.Path = at.line, at.column, at.written+rest
			break
		}
		cut := strings.LastIndexAny(field, ".[")
		if cut < 0 {
			rest, field = camelSegment("."+field)+rest, ""
			break
		}
		rest, field = camelSegment(field[cut:])+rest, field[:cut]
	}
	if p.Path == "" {
		p.Path = strings.TrimPrefix(rest, ".")
	}
	if v.RuleID == "string.const" && strings.HasSuffix(v.Field, "kind") {
		p.Hint = kindHint(checked)
	}
	return p
}

// coveredBy tells whether one of problems already stands at p's field, a parent of it, or (for a
// value that could not be read, not an unknown field) below it: a rule of the message around an
// unreadable value sees the value as unset.
func coveredBy(p Problem, problems []Problem) bool {
	for _, q := range problems {
		if q.Path == "" {
			continue
		}
		if p.Path == q.Path || strings.HasPrefix(p.Path, q.Path+".") || strings.HasPrefix(p.Path, q.Path+"[") {
			return true
		}
		if q.RuleID != "field.unknown" && (p.Path == "" || strings.HasPrefix(q.Path, p.Path+".") || strings.HasPrefix(q.Path, p.Path+"[")) {
			return true
		}
	}
	return false
}

// camelSegment writes a `.field_name` segment of a rule's path in JSON's camelCase.
func camelSegment(seg string) string {
	if !strings.HasPrefix(seg, ".") {
		return seg
	}
	parts := strings.Split(seg[1:], "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return "." + strings.Join(parts, "")
}

// isKind reports whether name is the kind of a registered API file: every kind, since this
// package links them all (apis/clusterplane/all).
func isKind(name string) bool {
	found := false
	protoregistry.GlobalFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		parts := strings.Split(string(f.Package()), ".")
		if len(parts) < 2 || !strings.HasPrefix(string(f.Package()), "clusterplane.provider.") ||
			parts[len(parts)-2] != strings.ToLower(name) {
			return true
		}
		found = f.Messages().ByName(protoreflect.Name(name)) != nil
		return !found
	})
	return found
}

func kindHint(checked proto.Message) string {
	m := checked.ProtoReflect()
	if fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget); fd != nil {
		m = m.Get(fd).Message()
	}
	fd := m.Descriptor().Fields().ByJSONName(kindfield.TargetKind)
	if fd == nil || fd.Kind() != protoreflect.StringKind {
		return ""
	}
	if kind := m.Get(fd).String(); isKind(kind) {
		return "this is a " + kind + " manifest: deploy it with the " + strings.ToLower(kind) + " program"
	}
	return ""
}
