// Command fieldsgen writes the JSON names of the API's fields as Go constants, so that code which
// reads a field by name (pkg/manifest/protofield) names it by a constant whose identifier is derived
// from the field: renaming or removing the field in a .proto and running `make protos` renames or
// removes the constant, and every reader of the old name fails to compile.
//
// It writes two kinds of file, from the descriptors the generated Go code registers:
//
//   - fields_gen.go in every package of messages under APIS_DIR: <Message>Field<Field> for every
//     field of every message of the package (sharedv1.RolloutFieldMaxSurge = "maxSurge").
//   - KINDFIELD_FILE: <Role><Field> for every field of every kind's messages, the role being the
//     message's name without the kind's (Target for the kind's own message, StackInput, Spec,
//     DefaultNodePool...), so that code handling every kind without importing any reads the
//     fields of them all: kindfield.SpecRegion = "region" is the spec's region in every kind that
//     has one. Each constant's comment names the messages that have the field.
//
// A kind is a message <Kind>StackInput in a stack_input.proto, as tools/apisgen finds them. Run
// after apisgen, whose apis/clusterplane/all links every kind's messages into this program.
//
// Usage: fieldsgen APIS_DIR KINDFIELD_FILE
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	_ "github.com/clusterplane/clusterplane/apis/clusterplane/all"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// root is the first element of the proto path of every file of the API ("clusterplane/...").
const root = "clusterplane/"

// PackageFile is the file written in every Go package of messages.
const PackageFile = "fields_gen.go"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fieldsgen APIS_DIR KINDFIELD_FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "fieldsgen:", err)
		os.Exit(1)
	}
}

// goPackage is one Go package of the API: its folder (the proto path's), name and messages.
type goPackage struct {
	dir, name string
	messages  []protoreflect.MessageDescriptor
	files     []protoreflect.FileDescriptor
}

func run(apis, kindFile string) error {
	packages := map[string]*goPackage{}
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(fd.Path(), root) {
			return true
		}
		dir := path.Dir(fd.Path())
		p := packages[dir]
		if p == nil {
			p = &goPackage{dir: dir, name: goPackageName(fd)}
			packages[dir] = p
		}
		p.files = append(p.files, fd)
		p.messages = append(p.messages, messagesOf(fd.Messages())...)
		return true
	})
	if len(packages) == 0 {
		return fmt.Errorf("no file under %s is registered: is apis/clusterplane/all generated?", root)
	}
	dirs := make([]string, 0, len(packages))
	for d := range packages {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var kinds []kind
	for _, d := range dirs {
		p := packages[d]
		if len(p.messages) == 0 {
			continue
		}
		src, err := packageFile(p)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if err := os.WriteFile(filepath.Join(apis, filepath.FromSlash(d), PackageFile), src, 0o644); err != nil {
			return err
		}
		kinds = append(kinds, kindsOf(p)...)
	}
	if len(kinds) == 0 {
		return fmt.Errorf("no <Kind>StackInput message in a stack_input.proto under %s", root)
	}
	src, err := kindFieldFile(kinds)
	if err != nil {
		return fmt.Errorf("%s: %w", kindFile, err)
	}
	if err := os.MkdirAll(filepath.Dir(kindFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(kindFile, src, 0o644)
}

// messagesOf is every message declared in ms and below, map entries left out (they are no
// message a manifest writes), sorted by full name.
func messagesOf(ms protoreflect.MessageDescriptors) []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	for i := range ms.Len() {
		m := ms.Get(i)
		if m.IsMapEntry() {
			continue
		}
		out = append(out, m)
		out = append(out, messagesOf(m.Messages())...)
	}
	return out
}

// goPackageName is the Go package name of fd's go_package option (".../v1;sharedv1").
func goPackageName(fd protoreflect.FileDescriptor) string {
	opts, _ := fd.Options().(*descriptorpb.FileOptions)
	gp := opts.GetGoPackage()
	if i := strings.LastIndexByte(gp, ';'); i >= 0 {
		return gp[i+1:]
	}
	return path.Base(gp)
}

// goIdent is the Go name protoc-gen-go gives a message: nested ones joined to their parent by _.
func goIdent(m protoreflect.MessageDescriptor) string {
	name := string(m.Name())
	for parent, ok := m.Parent().(protoreflect.MessageDescriptor); ok; parent, ok = parent.Parent().(protoreflect.MessageDescriptor) {
		name = string(parent.Name()) + "_" + name
	}
	return goCamelCase(name)
}

func packageFile(p *goPackage) ([]byte, error) {
	sort.Slice(p.messages, func(i, j int) bool { return p.messages[i].FullName() < p.messages[j].FullName() })
	var b bytes.Buffer
	b.WriteString("// Code generated by tools/fieldsgen from the proto descriptors. DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n", p.name)
	seen := map[string]string{}
	for _, m := range p.messages {
		fields := m.Fields()
		if fields.Len() == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n// The fields of %s, by the JSON names a manifest writes.\nconst (\n", m.FullName())
		for i := range fields.Len() {
			f := fields.Get(i)
			ident := goIdent(m) + "Field" + goCamelCase(string(f.Name()))
			if other, ok := seen[ident]; ok {
				return nil, fmt.Errorf("%s and %s.%s would both be %s", other, m.FullName(), f.Name(), ident)
			}
			seen[ident] = string(f.FullName())
			fmt.Fprintf(&b, "\t%s = %q\n", ident, f.JSONName())
		}
		b.WriteString(")\n")
	}
	return format.Source(b.Bytes())
}

// kind is one kind's name and the messages of its package named after it.
type kind struct {
	name     string
	messages []protoreflect.MessageDescriptor
}

// kindsOf is the kinds of p: a message <Kind>StackInput declared in a stack_input.proto makes Kind
// one, with every message of p whose name starts with Kind.
func kindsOf(p *goPackage) []kind {
	var out []kind
	for _, fd := range p.files {
		if path.Base(fd.Path()) != "stack_input.proto" {
			continue
		}
		for i := range fd.Messages().Len() {
			name, ok := strings.CutSuffix(string(fd.Messages().Get(i).Name()), "StackInput")
			if !ok || name == "" {
				continue
			}
			k := kind{name: name}
			for _, m := range p.messages {
				if m.Parent() == m.ParentFile() && strings.HasPrefix(string(m.Name()), name) {
					k.messages = append(k.messages, m)
				}
			}
			out = append(out, k)
		}
	}
	return out
}

// role is what a kind's message is to the kind: its name without the kind's, Target for the
// kind's own message (what a stack input's target holds).
func role(k kind, m protoreflect.MessageDescriptor) string {
	if r := strings.TrimPrefix(string(m.Name()), k.name); r != "" {
		return r
	}
	return "Target"
}

func kindFieldFile(kinds []kind) ([]byte, error) {
	type constant struct {
		ident, json string
		messages    []string
	}
	byIdent := map[string]*constant{}
	for _, k := range kinds {
		for _, m := range k.messages {
			fields := m.Fields()
			for i := range fields.Len() {
				f := fields.Get(i)
				ident := role(k, m) + goCamelCase(string(f.Name()))
				c := byIdent[ident]
				if c == nil {
					c = &constant{ident: ident, json: f.JSONName()}
					byIdent[ident] = c
				}
				if c.json != f.JSONName() {
					return nil, fmt.Errorf("%s is %q in %s and %q in %s", ident, c.json, c.messages[0], f.JSONName(), m.FullName())
				}
				c.messages = append(c.messages, string(m.FullName()))
			}
		}
	}
	idents := make([]string, 0, len(byIdent))
	for id := range byIdent {
		idents = append(idents, id)
	}
	sort.Strings(idents)
	var b bytes.Buffer
	b.WriteString("// Code generated by tools/fieldsgen from the proto descriptors. DO NOT EDIT.\n\n")
	b.WriteString("// Package kindfield names the fields of every kind's messages by the JSON names a manifest\n")
	b.WriteString("// writes, for code that reads them by name without importing any kind's API\n")
	b.WriteString("// (pkg/manifest/protofield). A constant is <Role><Field>: the role is the message's name without\n")
	b.WriteString("// the kind's (Target for the kind's own message), and the constant exists while one kind's message\n")
	b.WriteString("// of the role has the field, so renaming it in every kind fails the readers to compile.\n")
	b.WriteString("package kindfield\n\nconst (\n")
	for _, id := range idents {
		c := byIdent[id]
		sort.Strings(c.messages)
		fmt.Fprintf(&b, "\t// %s is a field of:\n", id)
		for _, m := range c.messages {
			fmt.Fprintf(&b, "\t//   - %s\n", m)
		}
		fmt.Fprintf(&b, "\t%s = %q\n", id, c.json)
	}
	b.WriteString(")\n")
	return format.Source(b.Bytes())
}

// goCamelCase is the Go name protoc-gen-go derives from a proto name (its internal strs.GoCamelCase):
// node_count is NodeCount, kubeconfig_b64 KubeconfigB64.
func goCamelCase(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && i+1 < len(s) && isLower(s[i+1]):
		case c == '.':
			b = append(b, '_')
		case c == '_' && (i == 0 || s[i-1] == '.'):
			b = append(b, 'X')
		case c == '_' && i+1 < len(s) && isLower(s[i+1]):
		case '0' <= c && c <= '9':
			b = append(b, c)
		default:
			if isLower(c) {
				c -= 'a' - 'A'
			}
			b = append(b, c)
			for ; i+1 < len(s) && isLower(s[i+1]); i++ {
				b = append(b, s[i+1])
			}
		}
	}
	return string(b)
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
