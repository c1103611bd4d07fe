// Package apidoc is the API's own documentation: the comments of the .proto files, which the
// compiled Go descriptors leave out. `make protos` writes them, with the descriptors, to the
// embedded image (a FileDescriptorSet built by buf with source info), so every tool that explains
// a field (the JSON Schemas, `explain`, the Pulumi package schema) reads the same words as the
// proto files.
package apidoc

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

//go:embed apis.binpb
var image []byte

var (
	loadOnce sync.Once
	comments map[protoreflect.FullName]string
	loadErr  error
)

// Comment returns the leading comment of the message, field, enum or enum value with the given
// full name, without comment markers and with the lines joined by newlines; "" when it has none.
func Comment(name protoreflect.FullName) string {
	loadOnce.Do(load)
	return comments[name]
}

// Err reports whether the embedded image could be read; Comment returns "" for everything when
// it could not.
func Err() error {
	loadOnce.Do(load)
	return loadErr
}

// Paths into a FileDescriptorProto, from descriptor.proto's field numbers, as SourceCodeInfo
// locations use them.
const (
	fileMessages  = 4
	fileEnums     = 5
	messageFields = 2
	messageNested = 3
	messageEnums  = 4
	messageOneofs = 8
	enumValues    = 2
)

func load() {
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(image, set); err != nil {
		loadErr = errors.Wrap(err, "read the embedded API image")
		comments = map[protoreflect.FullName]string{}
		return
	}
	comments = map[protoreflect.FullName]string{}
	for _, file := range set.GetFile() {
		names := namesByPath(file)
		for _, loc := range file.GetSourceCodeInfo().GetLocation() {
			name, ok := names[pathKey(loc.GetPath())]
			if !ok || loc.GetLeadingComments() == "" {
				continue
			}
			comments[name] = clean(loc.GetLeadingComments())
		}
	}
}

// namesByPath maps the source-info path of every message, field, oneof, enum and enum value of
// file to its full name.
func namesByPath(file *descriptorpb.FileDescriptorProto) map[string]protoreflect.FullName {
	out := map[string]protoreflect.FullName{}
	pkg := protoreflect.FullName(file.GetPackage())
	var enum func(path []int32, parent protoreflect.FullName, e *descriptorpb.EnumDescriptorProto)
	enum = func(path []int32, parent protoreflect.FullName, e *descriptorpb.EnumDescriptorProto) {
		name := parent.Append(protoreflect.Name(e.GetName()))
		out[pathKey(path)] = name
		for i, v := range e.GetValue() {
			// Enum values are scoped like their enum's siblings, as in C++.
			out[pathKey(append(append([]int32{}, path...), enumValues, int32(i)))] = parent.Append(protoreflect.Name(v.GetName()))
		}
	}
	var message func(path []int32, parent protoreflect.FullName, m *descriptorpb.DescriptorProto)
	message = func(path []int32, parent protoreflect.FullName, m *descriptorpb.DescriptorProto) {
		name := parent.Append(protoreflect.Name(m.GetName()))
		out[pathKey(path)] = name
		child := func(kind int32, i int) []int32 { return append(append([]int32{}, path...), kind, int32(i)) }
		for i, f := range m.GetField() {
			out[pathKey(child(messageFields, i))] = name.Append(protoreflect.Name(f.GetName()))
		}
		for i, o := range m.GetOneofDecl() {
			out[pathKey(child(messageOneofs, i))] = name.Append(protoreflect.Name(o.GetName()))
		}
		for i, n := range m.GetNestedType() {
			message(child(messageNested, i), name, n)
		}
		for i, e := range m.GetEnumType() {
			enum(child(messageEnums, i), name, e)
		}
	}
	for i, m := range file.GetMessageType() {
		message([]int32{fileMessages, int32(i)}, pkg, m)
	}
	for i, e := range file.GetEnumType() {
		enum([]int32{fileEnums, int32(i)}, pkg, e)
	}
	return out
}

func pathKey(path []int32) string { return fmt.Sprint(path) }

// clean drops the single space protoc keeps after each `//` and the trailing newline.
func clean(comment string) string {
	lines := strings.Split(strings.TrimRight(comment, "\n"), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimPrefix(line, " ")
	}
	return strings.Join(lines, "\n")
}
