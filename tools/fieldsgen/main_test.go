package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// generated is one constant of the committed generated files: its name, its value (a JSON name)
// and the messages its comment (or its block's) says have the field.
type generated struct {
	file, name, json string
	messages         []string
}

// messageName is a message's full name in a generated comment.
var messageName = regexp.MustCompile(`\bclusterplane(\.[A-Za-z0-9_]+)+`)

// committed is every constant of apis/**/fields_gen.go and apis/clusterplane/kindfield.
func committed(t *testing.T) []generated {
	t.Helper()
	apis := filepath.Join("..", "..", "apis")
	var out []generated
	err := filepath.WalkDir(apis, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(d.Name() == PackageFile || path == filepath.Join(apis, "clusterplane", "kindfield", "kindfield.go")) {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				doc := vs.Doc
				if doc == nil {
					doc = gd.Doc
				}
				lit, ok := vs.Values[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: %s is no string literal", path, vs.Names[0].Name)
					continue
				}
				value, _ := strconv.Unquote(lit.Value)
				out = append(out, generated{file: path, name: vs.Names[0].Name, json: value, messages: messageName.FindAllString(doc.Text(), -1)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEveryGeneratedFieldConstantNamesAFieldOfEachMessageItsCommentNames(t *testing.T) {
	constants := committed(t)
	files := map[string]bool{}
	for _, c := range constants {
		files[filepath.Base(c.file)] = true
	}
	if len(constants) < 100 || !files[PackageFile] || !files["kindfield.go"] {
		t.Fatalf("%d constants in %v: the generated files were not found", len(constants), files)
	}
	for _, c := range constants {
		pkg, _ := filepath.Rel(filepath.Join("..", "..", "apis"), filepath.Dir(c.file))
		t.Run(filepath.ToSlash(pkg)+"/"+c.name, func(t *testing.T) {
			if len(c.messages) == 0 {
				t.Fatalf("%s: the comment names no message", c.file)
			}
			for _, name := range c.messages {
				d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
				if err != nil {
					t.Errorf("%s = %q: no message %s: %v", c.name, c.json, name, err)
					continue
				}
				md, ok := d.(protoreflect.MessageDescriptor)
				if !ok {
					t.Errorf("%s = %q: %s is no message", c.name, c.json, name)
					continue
				}
				if md.Fields().ByJSONName(c.json) == nil {
					t.Errorf("%s = %q: %s has no field of that JSON name (regenerate: make protos)", c.name, c.json, name)
				}
			}
		})
	}
}

// The constants are named after the Go names protoc-gen-go gives the fields, so that a reader
// finds NodeCount next to GetNodeCount: every field of a registered message of the API, outside a
// oneof, is a struct field of goCamelCase of its proto name.
func TestTheConstantsAreNamedAsProtocGenGoNamesTheFields(t *testing.T) {
	checked := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if !strings.HasPrefix(string(md.FullName()), "clusterplane.") {
			return true
		}
		goType := reflect.TypeOf(mt.Zero().Interface()).Elem()
		for i := range md.Fields().Len() {
			fd := md.Fields().Get(i)
			if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
				continue
			}
			name := goCamelCase(string(fd.Name()))
			sf, ok := goType.FieldByName(name)
			if !ok || !strings.Contains(sf.Tag.Get("protobuf"), ",name="+string(fd.Name())+",") {
				t.Errorf("%s: goCamelCase says %s, no field of %s has that name and tag", fd.FullName(), name, goType)
			}
			checked++
		}
		return true
	})
	if checked < 100 {
		t.Fatalf("%d fields checked: the API is not linked", checked)
	}
}
