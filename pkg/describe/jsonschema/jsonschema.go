// Package jsonschema turns the API's messages into JSON Schemas (draft 2020-12), so that editors
// complete and check manifests as they are typed. Names, types and the rules JSON Schema can
// express (required fields, enums, patterns, lengths, bounds, unique items, no unknown fields)
// come from the compiled descriptors; descriptions come from the proto comments (pkg/describe/apidoc).
// Rules only CEL can express are not checked by the schema: their messages are appended to the
// field's description, and `clusterplane validate` checks them.
//
// The schema describes manifests as written: protojson's camelCase field names, enums by their
// value names without the unset zero value, integers as numbers. The tools also accept
// snake_case names, enum numbers and null for "unset"; the schema does not offer those.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Draft is the JSON Schema dialect of every schema written here.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is one JSON Schema object. Fields are in the order they are written.
type Schema struct {
	Schema               string             `json:"$schema,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Ref                  string             `json:"$ref,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Const                *string            `json:"const,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Format               string             `json:"format,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *uint64            `json:"minLength,omitempty"`
	MaxLength            *uint64            `json:"maxLength,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	ExclusiveMinimum     *float64           `json:"exclusiveMinimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	ExclusiveMaximum     *float64           `json:"exclusiveMaximum,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *uint64            `json:"minItems,omitempty"`
	MaxItems             *uint64            `json:"maxItems,omitempty"`
	UniqueItems          bool               `json:"uniqueItems,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	PropertyNames        *Schema            `json:"propertyNames,omitempty"`
	MinProperties        *uint64            `json:"minProperties,omitempty"`
	MaxProperties        *uint64            `json:"maxProperties,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	Not                  *Schema            `json:"not,omitempty"`
	Defs                 map[string]*Schema `json:"$defs,omitempty"`
}

// Of returns the schema of messages of type md: md itself at the root, every message it uses
// under $defs, keyed by full name.
func Of(md protoreflect.MessageDescriptor) (*Schema, error) {
	g := &generator{defs: map[string]*Schema{}}
	root, err := g.message(md)
	if err != nil {
		return nil, err
	}
	root.Schema = Draft
	root.Title = string(md.Name())
	if len(g.defs) > 0 {
		root.Defs = g.defs
	}
	return root, nil
}

// Files returns the committed schemas of the kinds whose stack-input messages are given, by file
// name: FileName(kind, false) for the manifest and FileName(kind, true) for the stack input.
func Files(stackInputs ...protoreflect.MessageDescriptor) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, input := range stackInputs {
		manifest := input.Fields().ByJSONName(kindfield.StackInputTarget).Message()
		kind := string(manifest.Name())
		for stackInput, md := range map[bool]protoreflect.MessageDescriptor{false: manifest, true: input} {
			s, err := Of(md)
			if err != nil {
				return nil, errors.Wrapf(err, "schema of %s", md.FullName())
			}
			data, err := Marshal(s)
			if err != nil {
				return nil, err
			}
			out[FileName(kind, stackInput)] = data
		}
	}
	return out, nil
}

// FileName is the name of the schema of kind's manifests, or of its stack inputs, e.g.
// "civokubernetescluster.schema.json" and "civokubernetescluster.stack-input.schema.json".
func FileName(kind string, stackInput bool) string {
	if stackInput {
		return strings.ToLower(kind) + ".stack-input.schema.json"
	}
	return strings.ToLower(kind) + ".schema.json"
}

// Marshal writes s as indented JSON with a final newline, the form committed under schemas/.
func Marshal(s *Schema) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, errors.Wrap(err, "write JSON Schema")
	}
	return buf.Bytes(), nil
}

type generator struct {
	defs map[string]*Schema
	// visiting guards against message types that contain themselves.
	visiting map[protoreflect.FullName]bool
}

// ref returns a reference to md's definition, adding it to $defs first.
func (g *generator) ref(md protoreflect.MessageDescriptor) (*Schema, error) {
	key := string(md.FullName())
	if _, ok := g.defs[key]; !ok {
		if g.visiting[md.FullName()] {
			return &Schema{Ref: "#/$defs/" + key}, nil
		}
		s, err := g.message(md)
		if err != nil {
			return nil, err
		}
		g.defs[key] = s
	}
	return &Schema{Ref: "#/$defs/" + key}, nil
}

func (g *generator) message(md protoreflect.MessageDescriptor) (*Schema, error) {
	if g.visiting == nil {
		g.visiting = map[protoreflect.FullName]bool{}
	}
	g.visiting[md.FullName()] = true
	defer delete(g.visiting, md.FullName())

	s := &Schema{
		Type:                 "object",
		Description:          describe(apidoc.Comment(md.FullName()), messageRules(md)),
		Properties:           map[string]*Schema{},
		AdditionalProperties: false,
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		fs, err := g.field(fd)
		if err != nil {
			return nil, errors.Wrapf(err, "field %s", fd.FullName())
		}
		s.Properties[fd.JSONName()] = fs
		required, err := rules.RejectsZero(fd)
		if err != nil {
			return nil, err
		}
		if required {
			s.Required = append(s.Required, fd.JSONName())
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var alternatives []*Schema
		for j := range od.Fields().Len() {
			alternatives = append(alternatives, &Schema{Required: []string{od.Fields().Get(j).JSONName()}})
		}
		if rules.OneofRequired(od) {
			s.OneOf = alternatives
		} else {
			s.Not = &Schema{AnyOf: pairs(alternatives)}
		}
	}
	return s, nil
}

// pairs returns, for oneof fields a, b, c, the schemas "a and b", "a and c", "b and c": a message
// matching none of them sets at most one.
func pairs(alternatives []*Schema) []*Schema {
	var out []*Schema
	for i := range alternatives {
		for j := i + 1; j < len(alternatives); j++ {
			out = append(out, &Schema{Required: []string{alternatives[i].Required[0], alternatives[j].Required[0]}})
		}
	}
	return out
}

// messageRules are the CEL rules of md that no field owns (see rules.CrossField).
func messageRules(md protoreflect.MessageDescriptor) []string {
	var out []string
	for _, r := range rules.Message(md) {
		id := r.GetId()
		if name, _, ok := strings.Cut(id, "."); ok && md.Fields().ByName(protoreflect.Name(name)) != nil {
			continue
		}
		out = append(out, r.GetMessage())
	}
	return out
}

func (g *generator) field(fd protoreflect.FieldDescriptor) (*Schema, error) {
	r := rules.Field(fd)
	var notes []string
	for _, c := range r.GetCel() {
		notes = append(notes, c.GetMessage())
	}
	for _, c := range rules.CrossField(fd) {
		notes = append(notes, c.GetMessage())
	}
	var s *Schema
	var err error
	switch {
	case fd.IsMap():
		s = &Schema{Type: "object"}
		p := r.GetMap()
		if s.PropertyNames, err = g.value(fd.MapKey(), p.GetKeys()); err != nil {
			return nil, err
		}
		if s.AdditionalProperties, err = g.value(fd.MapValue(), p.GetValues()); err != nil {
			return nil, err
		}
		if p.HasMinPairs() {
			s.MinProperties = ptr(p.GetMinPairs())
		}
		if p.HasMaxPairs() {
			s.MaxProperties = ptr(p.GetMaxPairs())
		}
		notes = append(notes, celOf(p.GetKeys(), "each key: ")...)
		notes = append(notes, celOf(p.GetValues(), "each value: ")...)
	case fd.IsList():
		s = &Schema{Type: "array"}
		p := r.GetRepeated()
		if s.Items, err = g.value(fd, p.GetItems()); err != nil {
			return nil, err
		}
		s.UniqueItems = p.GetUnique()
		if p.HasMinItems() {
			s.MinItems = ptr(p.GetMinItems())
		}
		if p.HasMaxItems() {
			s.MaxItems = ptr(p.GetMaxItems())
		}
		notes = append(notes, celOf(p.GetItems(), "each item: ")...)
	default:
		if s, err = g.value(fd, r); err != nil {
			return nil, err
		}
		if r.GetRequired() && fd.Kind() == protoreflect.StringKind && s.MinLength == nil {
			s.MinLength = ptr[uint64](1)
		}
		if rules.IgnoredWhenEmpty(fd) && fd.Kind() == protoreflect.StringKind && !reflect.DeepEqual(s, &Schema{Type: "string"}) {
			s = &Schema{Type: "string", AnyOf: []*Schema{{Const: ptr("")}, withoutType(s)}}
		}
	}
	s.Description = describe(apidoc.Comment(fd.FullName()), notes)
	return s, nil
}

// value is the schema of one value of fd's kind under rules r: the field itself, a list item, a
// map key or a map value.
func (g *generator) value(fd protoreflect.FieldDescriptor, r *validate.FieldRules) (*Schema, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return stringSchema(r.GetString())
	case protoreflect.BoolKind:
		return &Schema{Type: "boolean"}, nil
	case protoreflect.Int32Kind:
		s := &Schema{Type: "integer", Minimum: ptr[float64](-1 << 31), Maximum: ptr[float64](1<<31 - 1)}
		if n := r.GetInt32(); n != nil {
			bound(s, n.HasGt(), float64(n.GetGt()), n.HasGte(), float64(n.GetGte()),
				n.HasLt(), float64(n.GetLt()), n.HasLte(), float64(n.GetLte()))
		}
		return s, nil
	case protoreflect.DoubleKind:
		s := &Schema{Type: "number"}
		if n := r.GetDouble(); n != nil {
			bound(s, n.HasGt(), n.GetGt(), n.HasGte(), n.GetGte(), n.HasLt(), n.GetLt(), n.HasLte(), n.GetLte())
		}
		return s, nil
	case protoreflect.EnumKind:
		s := &Schema{Type: "string"}
		for _, v := range rules.EnumValues(fd.Enum()) {
			s.Enum = append(s.Enum, string(v.Name()))
		}
		return s, nil
	case protoreflect.MessageKind:
		return g.ref(fd.Message())
	default:
		return nil, errors.Errorf("no JSON Schema for %s fields", fd.Kind())
	}
}

func stringSchema(r *validate.StringRules) (*Schema, error) {
	s := &Schema{Type: "string"}
	if r == nil {
		return s, nil
	}
	if r.HasConst() {
		s.Const = ptr(r.GetConst())
	}
	if r.HasLen() {
		s.MinLength, s.MaxLength = ptr(r.GetLen()), ptr(r.GetLen())
	}
	if r.HasMinLen() {
		s.MinLength = ptr(r.GetMinLen())
	}
	if r.HasMaxLen() {
		s.MaxLength = ptr(r.GetMaxLen())
	}
	if len(r.GetIn()) > 0 {
		s.Enum = r.GetIn()
	}
	patterns := []string{}
	if r.HasPattern() {
		patterns = append(patterns, r.GetPattern())
	}
	switch {
	case r.GetIpv4Prefix():
		// The shape only: JSON Schema cannot check that the host bits are zero.
		patterns = append(patterns, `^[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}$`)
	case r.GetUri():
		s.Format = "uri"
	case r.GetPrefix() != "" || r.GetSuffix() != "" || r.GetIpv4() || r.GetHostname() || r.GetUuid():
		return nil, errors.New("a string rule this generator does not translate yet")
	}
	switch len(patterns) {
	case 0:
	case 1:
		s.Pattern = patterns[0]
	default:
		return nil, errors.New("more than one pattern on a string")
	}
	return s, nil
}

// bound sets the numeric bounds of s from a rule's gt, gte, lt and lte.
func bound(s *Schema, hasGt bool, gt float64, hasGte bool, gte float64, hasLt bool, lt float64, hasLte bool, lte float64) {
	if hasGt {
		s.Minimum, s.ExclusiveMinimum = nil, ptr(gt)
	}
	if hasGte {
		s.Minimum = ptr(gte)
	}
	if hasLt {
		s.Maximum, s.ExclusiveMaximum = nil, ptr(lt)
	}
	if hasLte {
		s.Maximum = ptr(lte)
	}
}

// celOf returns the messages of the CEL rules of an item, key or value, prefixed.
func celOf(r *validate.FieldRules, prefix string) []string {
	var out []string
	for _, c := range r.GetCel() {
		out = append(out, prefix+c.GetMessage())
	}
	return out
}

// describe is a comment followed by the rules the schema cannot check, one line each.
func describe(comment string, notes []string) string {
	comment = unwrap(comment)
	if len(notes) == 0 {
		return comment
	}
	sort.Strings(notes)
	lines := make([]string, len(notes))
	for i, n := range notes {
		lines[i] = "- " + n
	}
	return strings.TrimSpace(comment + "\n\nAlso checked by `clusterplane validate`:\n" + strings.Join(lines, "\n"))
}

// unwrap joins the lines of a comment into one paragraph, as editors reflow descriptions
// themselves.
func unwrap(comment string) string {
	return strings.Join(strings.Fields(comment), " ")
}

// withoutType returns s's rules without its type, for use under an anyOf that states it.
func withoutType(s *Schema) *Schema {
	c := *s
	c.Type = ""
	return &c
}

func ptr[T any](v T) *T { return &v }
