// Package explain documents a kind or one of its fields the way `kubectl explain` does: its type,
// its rules in words, its default, what changing it does, and its documentation from the proto
// comments. Fields are named as manifests write them (camelCase; snake_case is accepted), e.g.
// "DigitalOceanKubernetesCluster.spec.defaultNodePool.size".
package explain

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Explainer knows the kinds it can explain.
type Explainer struct {
	// Effect returns, in a sentence, what changing the field at path of a manifest of kind does
	// to the cloud resources, or "" when nothing is known. path is camelCase from the manifest's
	// root. New reads the kinds' effects tables, the ones `diff` uses; tests may stand in for it.
	Effect func(kind, path string) string
	roots  map[string]root
	// camel maps the snake_case proto names of the manifests' fields to the camelCase names a
	// manifest writes, for the comments and rules that name fields the proto way.
	camel map[string]string
}

// root is a message a query can start from: a kind's manifest or its stack input.
type root struct {
	md   protoreflect.MessageDescriptor
	kind string
	// manifest is the path prefix of the manifest inside md: "" for a manifest, "target" for a
	// stack input.
	manifest string
}

// New returns an explainer of the kinds whose stack-input messages are given; table finds a
// kind's effects table by its name (nil when none). Each kind is known by its manifest's name
// ("CivoKubernetesCluster") and its stack input's name ("CivoKubernetesClusterStackInput").
func New(table func(kind string) *effects.Table, stackInputs ...protoreflect.MessageDescriptor) *Explainer {
	e := &Explainer{roots: map[string]root{}, camel: map[string]string{}}
	e.Effect = func(kind, path string) string {
		if t := table(kind); t != nil {
			return t.Sentence(path)
		}
		return ""
	}
	for _, input := range stackInputs {
		manifest := input.Fields().ByJSONName(kindfield.StackInputTarget).Message()
		kind := string(manifest.Name())
		e.roots[kind] = root{md: manifest, kind: kind}
		e.roots[string(input.Name())] = root{md: input, kind: kind, manifest: kindfield.StackInputTarget}
		collectNames(input, e.camel, map[protoreflect.FullName]bool{})
	}
	return e
}

// collectNames records the manifest name of every field under md whose proto name differs from
// it; stack outputs keep their proto names (see listedName), so they are left out.
func collectNames(md protoreflect.MessageDescriptor, into map[string]string, seen map[protoreflect.FullName]bool) {
	if seen[md.FullName()] {
		return
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if name := listedName(fd); name != string(fd.Name()) {
			into[string(fd.Name())] = name
		}
		if fd.Message() != nil && !fd.IsMap() {
			collectNames(fd.Message(), into, seen)
		}
	}
}

// snakeWord is a word in snake_case, the way proto comments and rule messages name fields.
var snakeWord = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// manifestNames rewrites the field names of text from their proto spelling (kubernetes_version)
// to the one a manifest writes (kubernetesVersion); other snake_case words stay as they are.
func (e *Explainer) manifestNames(text string) string {
	return snakeWord.ReplaceAllStringFunc(text, func(w string) string {
		if name, ok := e.camel[w]; ok {
			return name
		}
		return w
	})
}

// Names returns the names queries may start with, sorted.
func (e *Explainer) Names() []string {
	names := make([]string, 0, len(e.roots))
	for name := range e.roots {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// root finds a kind by its name in any case: `clusterplane kinds` users type the program's
// lower-case name as often as the kind's.
func (e *Explainer) root(name string) (string, root, bool) {
	if r, ok := e.roots[name]; ok {
		return name, r, true
	}
	for n, r := range e.roots {
		if strings.EqualFold(n, name) {
			return n, r, true
		}
	}
	return "", root{}, false
}

// Topic is what a query found: a kind, or a field of it.
type Topic struct {
	explainer *Explainer
	root      root
	name      string
	// fields is the path from the root; empty for the kind itself.
	fields []protoreflect.FieldDescriptor
}

// Find resolves a query "KIND[.field.path]". List indexes ("taints[0]") are allowed and ignored:
// a path into a list names the fields of its items.
func (e *Explainer) Find(query string) (*Topic, error) {
	parts := strings.Split(query, ".")
	name, r, ok := e.root(parts[0])
	if !ok {
		return nil, errors.Errorf("unknown kind %s; %s: %s", stackinput.Quote(parts[0]),
			didYouMean(parts[0], e.Names(), "one of"), strings.Join(e.Names(), ", "))
	}
	t := &Topic{explainer: e, root: r, name: name}
	md := r.md
	for i, part := range parts[1:] {
		if md == nil {
			return nil, errors.Errorf("%s is a %s and has no fields, so no %q", t.Path(), typeName(t.Field()), part)
		}
		if j := strings.IndexByte(part, '['); j >= 0 && strings.HasSuffix(part, "]") {
			part = part[:j]
		}
		fd := field(md, part)
		if fd == nil {
			return nil, errors.Errorf("no field %q in %s; %s: %s", part, strings.Join(parts[:i+1], "."),
				didYouMean(part, fieldNames(md), "its fields are"), strings.Join(fieldNames(md), ", "))
		}
		t.fields = append(t.fields, fd)
		md = fd.Message()
		if fd.IsMap() {
			md = nil // a map's entries are not fields a manifest names
		}
	}
	return t, nil
}

// didYouMean is listing ("its fields are"), after the one of names that name is a misspelling of
// when one is a few edits away (case aside, as validate's unknown-field hint does): "did you
// mean nodeCount? Its fields are".
func didYouMean(name string, names []string, listing string) string {
	best, bestDistance := "", len(name)/2+2
	for _, n := range names {
		if d := apikinds.Distance(strings.ToLower(name), strings.ToLower(n)); d < bestDistance {
			best, bestDistance = n, d
		}
	}
	if best == "" {
		return listing
	}
	return "did you mean " + best + "? " + strings.ToUpper(listing[:1]) + listing[1:]
}

// field finds the field of md a manifest names name: by its JSON name or its proto name.
func field(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	if fd := md.Fields().ByJSONName(name); fd != nil {
		return fd
	}
	return md.Fields().ByName(protoreflect.Name(name))
}

func fieldNames(md protoreflect.MessageDescriptor) []string {
	names := make([]string, md.Fields().Len())
	for i := range names {
		names[i] = md.Fields().Get(i).JSONName()
	}
	return names
}

// Complete returns the queries one step longer than prefix that start with it: kind names, then
// "KIND.field", "KIND.field.field" and so on, for shell completion.
func (e *Explainer) Complete(prefix string) []string {
	var out []string
	parent, partial, nested := cutLast(prefix, ".")
	if !nested {
		for _, name := range e.Names() {
			if strings.HasPrefix(name, prefix) {
				out = append(out, name)
			}
		}
		return out
	}
	t, err := e.Find(parent)
	if err != nil {
		return nil
	}
	md := t.message()
	if md == nil {
		return nil
	}
	for _, name := range fieldNames(md) {
		if strings.HasPrefix(name, partial) {
			out = append(out, parent+"."+name)
		}
	}
	return out
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Path is the target's camelCase path from its root, e.g. "spec.defaultNodePool.size"; "" for
// the kind itself.
func (t *Topic) Path() string {
	names := make([]string, len(t.fields))
	for i, fd := range t.fields {
		names[i] = fd.JSONName()
	}
	return strings.Join(names, ".")
}

// Field is the field the target names; nil for the kind itself.
func (t *Topic) Field() protoreflect.FieldDescriptor {
	if len(t.fields) == 0 {
		return nil
	}
	return t.fields[len(t.fields)-1]
}

// message is the message whose fields the target has: the root, or the field's message type.
func (t *Topic) message() protoreflect.MessageDescriptor {
	fd := t.Field()
	switch {
	case fd == nil:
		return t.root.md
	case fd.IsMap():
		return nil
	default:
		return fd.Message()
	}
}

// effect asks the explainer's Effect about the target, with its path from the manifest's root.
func (t *Topic) effect() string {
	path := t.Path()
	if t.root.manifest != "" {
		rest, ok := strings.CutPrefix(path, t.root.manifest+".")
		if !ok {
			return ""
		}
		path = rest
	}
	if path == "" {
		return ""
	}
	return t.explainer.Effect(t.root.kind, path)
}

// Doc is an explanation as data, what `explain -o json` prints: the text form says the same.
type Doc struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion,omitempty"`
	// Field is the field's path from the kind's root, "" for the kind itself; Type its JSON type.
	Field       string   `json:"field,omitempty"`
	Type        string   `json:"type,omitempty"`
	Description string   `json:"description"`
	Rules       []string `json:"rules,omitempty"`
	Default     string   `json:"default,omitempty"`
	// Changing is what changing the field does to the cloud resources.
	Changing string     `json:"changing,omitempty"`
	Values   []Value    `json:"values,omitempty"`
	Fields   []FieldDoc `json:"fields,omitempty"`
}

// Value is one value of an enum field.
type Value struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// FieldDoc is one field of a message, as the FIELDS section lists it.
type FieldDoc struct {
	Name     string     `json:"name"`
	Type     string     `json:"type"`
	Required bool       `json:"required,omitempty"`
	Summary  string     `json:"summary,omitempty"`
	Fields   []FieldDoc `json:"fields,omitempty"`
}

// Doc is the explanation of the target; with recursive the fields of fields are listed too.
func (t *Topic) Doc(recursive bool) (*Doc, error) {
	d := &Doc{Kind: t.name, APIVersion: apiVersion(t.root.md)}
	fd := t.Field()
	comment := apidoc.Comment(t.root.md.FullName())
	if fd != nil {
		d.Field, d.Type = t.Path(), typeName(fd)
		comment = apidoc.Comment(fd.FullName())
	}
	d.Description = t.explainer.manifestNames(comment)
	if fd != nil {
		if rule, ok := requiredByReferences[fd.FullName()]; ok {
			d.Rules = append(d.Rules, rule)
		}
		for _, r := range ruleWords(fd) {
			d.Rules = append(d.Rules, t.explainer.manifestNames(r))
		}
		def, err := defaultOf(fd)
		if err != nil {
			return nil, err
		}
		if other, ok := requiredWithout(fd); ok {
			def = fmt.Sprintf("none unless %s is true: a manifest must set it, 0 is refused; with %s true it may be left out (0)",
				other, other)
		}
		d.Default, d.Changing = def, t.effect()
		if fd.Kind() == protoreflect.EnumKind {
			for _, v := range rules.EnumValues(fd.Enum()) {
				d.Values = append(d.Values, Value{Name: string(v.Name()), Description: firstSentence(apidoc.Comment(v.FullName()))})
			}
		}
	}
	if md := t.message(); md != nil {
		fields, err := t.explainer.fieldDocs(md, recursive)
		if err != nil {
			return nil, err
		}
		d.Fields = fields
	}
	return d, nil
}

// Write writes the explanation: header, description, rules, default, what changing it does,
// enum values and fields. With recursive the fields of fields are listed too, by name and type.
func (t *Topic) Write(w io.Writer, recursive bool) error {
	d, err := t.Doc(recursive)
	if err != nil {
		return err
	}
	ew := &errWriter{w: w}
	ew.printf("KIND:     %s\n", d.Kind)
	if d.APIVersion != "" {
		ew.printf("VERSION:  %s\n", d.APIVersion)
	}
	if d.Field != "" {
		ew.printf("\nFIELD:    %s <%s>\n", d.Field, d.Type)
	}
	ew.section("DESCRIPTION", strings.Split(orNone(d.Description), "\n"))
	if d.Field != "" {
		var lines []string
		for _, r := range d.Rules {
			lines = append(lines, "- "+r)
		}
		if len(lines) > 0 {
			ew.section("RULES", lines)
		}
		ew.section("DEFAULT", []string{d.Default})
		if d.Changing != "" {
			ew.section("CHANGING IT", []string{d.Changing})
		}
		if len(d.Values) > 0 {
			var b strings.Builder
			tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			for _, v := range d.Values {
				fmt.Fprintf(tw, "%s\t%s\n", v.Name, v.Description)
			}
			tw.Flush()
			ew.section("VALUES", strings.Split(strings.TrimRight(b.String(), "\n"), "\n"))
		}
	}
	if t.message() != nil {
		ew.printf("\nFIELDS:\n")
		writeFields(ew, d.Fields, recursive, 1)
	}
	return ew.err
}

// writeFields lists fields by name and type, each with its summary or, with recursive, its fields.
func writeFields(ew *errWriter, fields []FieldDoc, recursive bool, depth int) {
	indent := strings.Repeat("  ", depth)
	width := 0
	for _, f := range fields {
		width = max(width, len(f.Name))
	}
	for _, f := range fields {
		mark := ""
		if f.Required {
			mark = " -required-"
		}
		ew.printf("%s%-*s  <%s>%s\n", indent, width, f.Name, f.Type, mark)
		if recursive {
			writeFields(ew, f.Fields, recursive, depth+1)
			continue
		}
		if f.Summary != "" {
			ew.printf("%s    %s\n", indent, f.Summary)
		}
	}
}

// fieldDocs are md's fields; with recursive each with the fields of its message.
func (e *Explainer) fieldDocs(md protoreflect.MessageDescriptor, recursive bool) ([]FieldDoc, error) {
	fields := md.Fields()
	out := make([]FieldDoc, 0, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		required, err := required(fd)
		if err != nil {
			return nil, err
		}
		f := FieldDoc{Name: listedName(fd), Type: typeName(fd), Required: required}
		if recursive {
			if fd.Message() != nil && !fd.IsMap() {
				if f.Fields, err = e.fieldDocs(fd.Message(), recursive); err != nil {
					return nil, err
				}
			}
		} else {
			f.Summary = firstSentence(e.manifestNames(apidoc.Comment(fd.FullName())))
		}
		out = append(out, f)
	}
	return out, nil
}

// requiredWithout is the field whose truth lets fd be 0, for a field a rule of its message
// requires unless another is true: by this API's convention the rule's id is
// "<field>.required_without_<other>" (node_count.required_without_auto_scale). Its own bounds
// (0 to 5000) allow the 0 only for the other field's sake.
func requiredWithout(fd protoreflect.FieldDescriptor) (string, bool) {
	for _, r := range rules.CrossField(fd) {
		if other, ok := strings.CutPrefix(r.GetId(), string(fd.Name())+".required_without_"); ok {
			if ofd := fd.ContainingMessage().Fields().ByName(protoreflect.Name(other)); ofd != nil {
				return ofd.JSONName(), true
			}
		}
	}
	return "", false
}

// ruleWords are fd's rules in words (rules.Words), with a range from 0 that a rule lifts to 1
// unless another field is true (requiredWithout) said as the range it is: "from 1 to 5000, or 0
// when autoScale is true", in place of "from 0 to 5000" beside "at least 1 unless autoScale is
// true".
func ruleWords(fd protoreflect.FieldDescriptor) []string {
	words := rules.Words(fd)
	other, ok := requiredWithout(fd)
	bounds := rules.Field(fd).GetInt32()
	if !ok || bounds == nil || !bounds.HasGte() || bounds.GetGte() != 0 || !bounds.HasLte() {
		return words
	}
	var lifted string
	for _, r := range rules.CrossField(fd) {
		if strings.HasPrefix(r.GetId(), string(fd.Name())+".required_without_") {
			lifted = r.GetMessage()
		}
	}
	from := fmt.Sprintf("from 0 to %d", bounds.GetLte())
	var out []string
	for _, w := range words {
		switch w {
		case from:
			out = append(out, fmt.Sprintf("from 1 to %d, or 0 when %s is true", bounds.GetLte(), other))
		case lifted:
		default:
			out = append(out, w)
		}
	}
	return out
}

// listedName is how a manifest writes a field: its JSON name, except the stack outputs, which a
// reference's fieldPath names as the stacks export them (status.outputs.cluster_id).
func listedName(fd protoreflect.FieldDescriptor) string {
	if strings.HasSuffix(string(fd.ContainingMessage().Name()), "StackOutputs") {
		return string(fd.Name())
	}
	return fd.JSONName()
}

// typeName is a field's type as a manifest sees it: JSON types, lists as []T.
func typeName(fd protoreflect.FieldDescriptor) string {
	if fd.IsMap() {
		return "map[" + scalarType(fd.MapKey()) + "]" + scalarType(fd.MapValue())
	}
	if fd.IsList() {
		return "[]" + scalarType(fd)
	}
	return scalarType(fd)
}

func scalarType(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "boolean"
	case protoreflect.StringKind, protoreflect.EnumKind, protoreflect.BytesKind:
		return "string"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "number"
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "object"
	default:
		return "integer"
	}
}

// requiredByReferences are fields that no rule of their own requires but the rule of every field
// holding them does, and what to say of it: each reference field's rule demands valueFrom.kind
// (the kind whose stack it reads), so validate refuses a reference without one.
var requiredByReferences = map[protoreflect.FullName]string{
	"clusterplane.shared.v1.ValueFromRef.kind": "required: every reference names the kind of the manifest whose stack it reads " +
		"(the reference field's own rule says which)",
}

// required tells whether a manifest must set fd: its rules, or the rules of the fields holding it,
// refuse its zero value.
func required(fd protoreflect.FieldDescriptor) (bool, error) {
	if _, ok := requiredByReferences[fd.FullName()]; ok {
		return true, nil
	}
	return rules.RejectsZero(fd)
}

// defaultOf says what the field is when a manifest leaves it out.
func defaultOf(fd protoreflect.FieldDescriptor) (string, error) {
	required, err := required(fd)
	if err != nil {
		return "", err
	}
	if required {
		return "none: a manifest must set it", nil
	}
	switch {
	case fd.IsMap():
		return "{} (no entries)", nil
	case fd.IsList():
		return "[] (no items)", nil
	case fd.HasPresence():
		return "not set", nil
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return "false", nil
	case protoreflect.StringKind:
		return `"" (empty)`, nil
	case protoreflect.EnumKind:
		zero := fd.Enum().Values().ByNumber(0)
		if zero != nil {
			if c := apidoc.Comment(zero.FullName()); c != "" {
				return "not set: " + firstSentence(c), nil
			}
		}
		return "not set", nil
	default:
		return "0", nil
	}
}

// apiVersion is the apiVersion a manifest root (or the target of a stack-input root) must have.
func apiVersion(md protoreflect.MessageDescriptor) string {
	if target := md.Fields().ByJSONName(kindfield.StackInputTarget); target != nil && target.Message() != nil {
		md = target.Message()
	}
	if fd := md.Fields().ByJSONName(kindfield.TargetApiVersion); fd != nil {
		return rules.Field(fd).GetString().GetConst()
	}
	return ""
}

// firstSentence is a comment's first sentence, on one line.
func firstSentence(comment string) string {
	text := strings.Join(strings.Fields(comment), " ")
	for i := 0; i+1 < len(text); i++ {
		if text[i] != '.' || text[i+1] != ' ' {
			continue
		}
		if head := text[:i+1]; !strings.HasSuffix(head, "e.g.") && !strings.HasSuffix(head, "i.e.") {
			return head
		}
	}
	return text
}

func orNone(s string) string {
	if s == "" {
		return "(undocumented)"
	}
	return s
}

// errWriter keeps the first write error so that Write checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) section(title string, lines []string) {
	e.printf("\n%s:\n", title)
	for _, l := range lines {
		e.printf("    %s\n", l)
	}
}
