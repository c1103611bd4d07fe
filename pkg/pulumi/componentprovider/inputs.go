package componentprovider

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Problem is one input the component cannot take: the input's path as the program wrote it
// (camelCase, e.g. "defaultNodePool.nodeCount"), what is wrong and, where validate would give
// one, what to write instead. It never holds a value.
type Problem struct {
	Path    string
	Message string
	Hint    string
}

// InputError is every problem with one component's inputs; nothing was registered.
type InputError struct {
	Type, Name string
	Problems   []Problem
}

func (e *InputError) Error() string {
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		path := p.Path
		if path == "" {
			path = "(inputs)"
		}
		lines[i] = "  " + path + ": " + p.Message
		if p.Hint != "" {
			lines[i] += " (" + p.Hint + ")"
		}
	}
	return fmt.Sprintf("%s %q: %d %s:\n%s", e.Type, e.Name, len(lines), noun, strings.Join(lines, "\n"))
}

// Inputs are a component's inputs read into its kind's stack input.
type Inputs struct {
	// StackInput holds every input known before deployment; reference fields given as outputs
	// are left unset (see Outputs).
	StackInput proto.Message
	// Outputs names the reference fields (spec fields of type StringValueOrRef, by JSON name)
	// whose input is another resource's output: the component reads their `value` when it is
	// known and keeps their dependencies.
	Outputs map[string]string
}

// ReadInputs reads the inputs of the component named name into a new stackInput and checks it
// with the programs' rules. deps are the inputs' dependencies by input name. A field the component
// branches on (every field but the ids of StringValueOrRef fields) must be known before
// deployment and must not wait for another resource: an output there is refused with a message
// naming the field, rather than guessed or silently dropped. A secret is accepted only in
// providerConfig and in reference fields, whose values the component passes on as outputs.
func ReadInputs(typ, name string, stackInput proto.Message, props resource.PropertyMap, deps map[string][]string) (*Inputs, error) {
	in := stackInput.ProtoReflect()
	target := in.Mutable(in.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)).Message()
	spec := target.Mutable(target.Descriptor().Fields().ByJSONName(kindfield.TargetSpec)).Message()
	r := &reader{}
	out := &Inputs{StackInput: stackInput, Outputs: map[string]string{}}

	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := props[resource.PropertyKey(key)]
		if v.IsNull() {
			continue
		}
		dependent := len(deps[key]) > 0 || v.ContainsUnknowns() || hasDependencies(v)
		switch key {
		case pulumischema.MetadataInput, pulumischema.ProviderConfigInput:
			owner, field := target, kindfield.TargetMetadata
			if key == pulumischema.ProviderConfigInput {
				owner, field = in, kindfield.StackInputProviderConfig
			}
			fd := owner.Descriptor().Fields().ByJSONName(field)
			switch {
			case dependent:
				r.refuse(key, mustBePlain)
			case v.ContainsSecrets() && key == pulumischema.MetadataInput:
				r.refuse(key, mustNotBeSecret)
			default:
				r.message(key, v, owner.Mutable(fd).Message())
			}
			continue
		}
		fd := spec.Descriptor().Fields().ByJSONName(key)
		if fd == nil {
			r.refuse(key, fmt.Sprintf("%s has no input %q", typ, key))
			continue
		}
		if isReference(fd) && (dependent || v.ContainsSecrets()) {
			out.Outputs[fd.JSONName()] = key
			continue
		}
		switch {
		case dependent:
			r.refuse(key, mustBePlain)
		case v.ContainsSecrets():
			r.refuse(key, mustNotBeSecret)
		default:
			r.field(key, v, spec, fd)
		}
	}
	if len(r.problems) > 0 {
		return nil, &InputError{Type: typ, Name: name, Problems: r.problems}
	}

	setConst(target, kindfield.TargetApiVersion)
	setConst(target, kindfield.TargetKind)
	metadataFD := target.Descriptor().Fields().ByJSONName(kindfield.TargetMetadata)
	defaulted := !target.Has(metadataFD)
	if defaulted {
		md := target.Mutable(metadataFD).Message()
		md.Set(md.Descriptor().Fields().ByJSONName(sharedv1.CloudResourceMetadataFieldName), protoreflect.ValueOfString(name))
	}
	if err := check(stackInput, out.Outputs); err != nil {
		return nil, ruleProblems(err, typ, name, spec, defaulted)
	}
	return out, nil
}

// ruleProblems turns the rules' violations of a component's inputs into an InputError naming
// each input as the program wrote it. defaulted says metadata.name was the component's name.
func ruleProblems(err error, typ, name string, spec protoreflect.Message, defaulted bool) error {
	var problems []Problem
	for _, v := range validation.Violations(err) {
		p := Problem{Path: inputPath(v.Field), Message: v.Message, Hint: v.Hint}
		if field, _, ok := strings.Cut(v.RuleID, "."); ok && p.Path == "" {
			// A rule relating fields is, by the API's convention, about the field its id starts with.
			if fd := spec.Descriptor().Fields().ByName(protoreflect.Name(field)); fd != nil {
				p.Path = fd.JSONName()
			}
		}
		if defaulted && strings.HasPrefix(p.Path, pulumischema.MetadataInput+".") {
			p.Message += " (metadata.name defaults to the component's name; set metadata to choose another)"
		}
		problems = append(problems, p)
	}
	if problems == nil {
		return err
	}
	return &InputError{Type: typ, Name: name, Problems: problems}
}

const (
	mustBePlain = "takes a value known before deployment, not another resource's output: " +
		"the component decides from it which resources to create and with what arguments"
	mustNotBeSecret = "must not be a secret: the component sends it to the cloud in plain text " +
		"(names, tags, labels)"
)

// check validates stackInput as the programs do, with a placeholder id in each reference field
// given as an output.
func check(stackInput proto.Message, outputs map[string]string) error {
	checked := proto.Clone(stackInput).ProtoReflect()
	target := checked.Mutable(checked.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)).Message()
	spec := target.Mutable(target.Descriptor().Fields().ByJSONName(kindfield.TargetSpec)).Message()
	for field := range outputs {
		fd := spec.Descriptor().Fields().ByJSONName(field)
		spec.Set(fd, protoreflect.ValueOfMessage(component.InputPlaceholder().ProtoReflect()))
	}
	return validation.Validate(checked.Interface())
}

// setConst sets a manifest field (by JSON name) whose only allowed value is a const (apiVersion,
// kind).
func setConst(m protoreflect.Message, jsonName string) {
	fd := m.Descriptor().Fields().ByJSONName(jsonName)
	m.Set(fd, protoreflect.ValueOfString(rules.Field(fd).GetString().GetConst()))
}

// isReference reports whether fd takes an id or a stack reference (StringValueOrRef).
func isReference(fd protoreflect.FieldDescriptor) bool {
	return fd.Message() != nil && !fd.IsList() && !fd.IsMap() && fd.Message().Name() == "StringValueOrRef"
}

// hasDependencies reports whether v holds an output of another resource, known or not.
func hasDependencies(v resource.PropertyValue) bool {
	switch {
	case v.IsOutput():
		return len(v.OutputValue().Dependencies) > 0 || hasDependencies(v.OutputValue().Element)
	case v.IsSecret():
		return hasDependencies(v.SecretValue().Element)
	case v.IsResourceReference():
		return true
	case v.IsArray():
		for _, e := range v.ArrayValue() {
			if hasDependencies(e) {
				return true
			}
		}
	case v.IsObject():
		for _, e := range v.ObjectValue() {
			if hasDependencies(e) {
				return true
			}
		}
	}
	return false
}

// inputPath turns a validation path in proto names into the input's path as written: the spec's
// fields are the component's inputs, metadata and provider_config are inputs of their own.
func inputPath(protoPath string) string {
	switch {
	case protoPath == "target.spec":
		return ""
	case strings.HasPrefix(protoPath, "target.spec."):
		protoPath = strings.TrimPrefix(protoPath, "target.spec.")
	case strings.HasPrefix(protoPath, "target."):
		protoPath = strings.TrimPrefix(protoPath, "target.")
	}
	return camel(protoPath)
}

// camel turns the snake_case names of a path into camelCase, leaving map keys and indexes (in
// brackets) as they are.
func camel(path string) string {
	var b strings.Builder
	depth, upper := 0, false
	for _, c := range path {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0 && c == '_':
			upper = true
			continue
		}
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(c)
	}
	return b.String()
}

// reader copies plain property values into messages, collecting a problem for each value of the
// wrong shape.
type reader struct {
	problems []Problem
}

func (r *reader) refuse(path, message string) {
	r.problems = append(r.problems, Problem{Path: path, Message: message})
}

// plain unwraps the secret and known-output wrappers that a plain value may arrive in.
func plain(v resource.PropertyValue) resource.PropertyValue {
	for {
		switch {
		case v.IsSecret():
			v = v.SecretValue().Element
		case v.IsOutput():
			v = v.OutputValue().Element
		default:
			return v
		}
	}
}

func (r *reader) message(path string, v resource.PropertyValue, m protoreflect.Message) {
	v = plain(v)
	if !v.IsObject() {
		r.refuse(path, "must be an object")
		return
	}
	obj := v.ObjectValue()
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	for _, k := range keys {
		fd := m.Descriptor().Fields().ByJSONName(k)
		if fd == nil {
			r.refuse(path+"."+k, "unknown field")
			continue
		}
		r.field(path+"."+k, obj[resource.PropertyKey(k)], m, fd)
	}
}

func (r *reader) field(path string, v resource.PropertyValue, m protoreflect.Message, fd protoreflect.FieldDescriptor) {
	v = plain(v)
	if v.IsNull() {
		return
	}
	switch {
	case fd.IsMap():
		if !v.IsObject() {
			r.refuse(path, "must be an object of strings")
			return
		}
		dst := m.Mutable(fd).Map()
		for k, e := range v.ObjectValue() {
			if e = plain(e); !e.IsString() {
				r.refuse(fmt.Sprintf("%s[%q]", path, string(k)), "must be a string")
				continue
			}
			dst.Set(protoreflect.ValueOfString(string(k)).MapKey(), protoreflect.ValueOfString(e.StringValue()))
		}
	case fd.IsList():
		if !v.IsArray() {
			r.refuse(path, "must be a list")
			return
		}
		dst := m.Mutable(fd).List()
		for i, e := range v.ArrayValue() {
			item := fmt.Sprintf("%s[%d]", path, i)
			if fd.Message() != nil {
				el := dst.NewElement()
				r.message(item, e, el.Message())
				dst.Append(el)
				continue
			}
			if value, ok := r.scalar(item, plain(e), fd); ok {
				dst.Append(value)
			}
		}
	case fd.Message() != nil:
		r.message(path, v, m.Mutable(fd).Message())
	default:
		if value, ok := r.scalar(path, v, fd); ok {
			m.Set(fd, value)
		}
	}
}

func (r *reader) scalar(path string, v resource.PropertyValue, fd protoreflect.FieldDescriptor) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if v.IsString() {
			return protoreflect.ValueOfString(v.StringValue()), true
		}
		r.refuse(path, "must be a string")
	case protoreflect.BoolKind:
		if v.IsBool() {
			return protoreflect.ValueOfBool(v.BoolValue()), true
		}
		r.refuse(path, "must be true or false")
	case protoreflect.Int32Kind:
		if v.IsNumber() {
			if n := v.NumberValue(); n == math.Trunc(n) && n >= math.MinInt32 && n <= math.MaxInt32 {
				return protoreflect.ValueOfInt32(int32(n)), true
			}
		}
		r.refuse(path, "must be a whole number")
	case protoreflect.DoubleKind:
		if v.IsNumber() {
			return protoreflect.ValueOfFloat64(v.NumberValue()), true
		}
		r.refuse(path, "must be a number")
	case protoreflect.EnumKind:
		if v.IsString() {
			for _, e := range rules.EnumValues(fd.Enum()) {
				if string(e.Name()) == v.StringValue() {
					return protoreflect.ValueOfEnum(e.Number()), true
				}
			}
		}
		var names []string
		for _, e := range rules.EnumValues(fd.Enum()) {
			names = append(names, string(e.Name()))
		}
		r.refuse(path, "must be one of "+strings.Join(names, ", "))
	default:
		r.refuse(path, fmt.Sprintf("has a type (%s) no input takes", fd.Kind()))
	}
	return protoreflect.Value{}, false
}
