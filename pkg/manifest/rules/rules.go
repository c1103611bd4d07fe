// Package rules reads the buf.validate rules of the API's fields from the compiled descriptors
// and says them in words, for the tools that show them to people: the JSON Schemas and
// `clusterplane explain`. The validator itself (pkg/manifest/validation) stays the one that enforces them.
package rules

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Field returns the rules of fd; nil when it has none.
func Field(fd protoreflect.FieldDescriptor) *validate.FieldRules {
	r, _ := proto.GetExtension(fd.Options(), validate.E_Field).(*validate.FieldRules)
	return r
}

// Secret tells whether the field holds a secret (debug_redact): an API token. Its value is never
// shown, compared or checked for a token's shape, and Pulumi gets it as a secret.
func Secret(fd protoreflect.FieldDescriptor) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	return ok && opts.GetDebugRedact()
}

// OneofRequired reports whether exactly one field of od must be set.
func OneofRequired(od protoreflect.OneofDescriptor) bool {
	r, _ := proto.GetExtension(od.Options(), validate.E_Oneof).(*validate.OneofRules)
	return r.GetRequired()
}

// Message returns the message-level CEL rules of md, which relate several fields.
func Message(md protoreflect.MessageDescriptor) []*validate.Rule {
	r, _ := proto.GetExtension(md.Options(), validate.E_Message).(*validate.MessageRules)
	return r.GetCel()
}

// CrossField returns the message-level rules of fd's message that are about fd: by this API's
// convention their ids start with the field's name and a dot (e.g. "min_nodes.at_least_one").
func CrossField(fd protoreflect.FieldDescriptor) []*validate.Rule {
	var out []*validate.Rule
	for _, r := range Message(fd.ContainingMessage()) {
		if strings.HasPrefix(r.GetId(), string(fd.Name())+".") {
			out = append(out, r)
		}
	}
	return out
}

// IgnoredWhenEmpty reports whether fd's rules apply only when it is set, so that its zero value
// means "not set" and is always accepted.
func IgnoredWhenEmpty(fd protoreflect.FieldDescriptor) bool {
	return Field(fd).GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE
}

var (
	rejectsZeroMu sync.Mutex
	rejectsZero   = map[protoreflect.MessageDescriptor]map[protoreflect.FieldDescriptor]bool{}
)

// RejectsZero reports whether the validator rejects fd when it is absent (has its zero value),
// so that a manifest must write it. It asks the validator itself, on an empty message, rather
// than guessing from the rules: `required`, a `const`, a lower bound above zero all count.
func RejectsZero(fd protoreflect.FieldDescriptor) (bool, error) {
	md := fd.ContainingMessage()
	rejectsZeroMu.Lock()
	defer rejectsZeroMu.Unlock()
	fields, ok := rejectsZero[md]
	if !ok {
		fields = map[protoreflect.FieldDescriptor]bool{}
		err := protovalidate.Validate(dynamicpb.NewMessage(md))
		var verr *protovalidate.ValidationError
		if err != nil && !errors.As(err, &verr) {
			return false, errors.Wrapf(err, "evaluate the rules of %s", md.FullName())
		}
		if verr != nil {
			for _, v := range verr.Violations {
				if v.FieldDescriptor != nil && len(v.Proto.GetField().GetElements()) == 1 {
					fields[v.FieldDescriptor] = true
				}
			}
		}
		rejectsZero[md] = fields
	}
	for f := range fields {
		if f.FullName() == fd.FullName() {
			return true, nil
		}
	}
	return false, nil
}

// EnumValues returns the names a manifest may write for enum ed: every value but the zero one,
// which stands for "not set" and is never written.
func EnumValues(ed protoreflect.EnumDescriptor) []protoreflect.EnumValueDescriptor {
	var out []protoreflect.EnumValueDescriptor
	values := ed.Values()
	for i := range values.Len() {
		if v := values.Get(i); v.Number() != 0 {
			out = append(out, v)
		}
	}
	return out
}

// Words returns the rules of fd in words, one short sentence each, in the order: presence,
// type rules, per-item rules, CEL rules of the field, rules relating it to other fields.
func Words(fd protoreflect.FieldDescriptor) []string {
	r := Field(fd)
	var out []string
	if r.GetRequired() {
		out = append(out, "required: must be set"+notEmpty(fd))
	}
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		names := make([]string, od.Fields().Len())
		for i := range names {
			names[i] = od.Fields().Get(i).JSONName()
		}
		rule := "at most one of " + strings.Join(names, ", ")
		if OneofRequired(od) {
			rule = "exactly one of " + strings.Join(names, ", ")
		}
		out = append(out, rule+" is set")
	}
	if IgnoredWhenEmpty(fd) {
		out = append(out, "may be left empty; the rules below apply only when it is set")
	}
	switch {
	case fd.IsMap():
		if p := r.GetMap(); p != nil {
			if p.HasMinPairs() {
				out = append(out, count("at least", p.GetMinPairs(), "entry", "entries"))
			}
			if p.HasMaxPairs() {
				out = append(out, count("at most", p.GetMaxPairs(), "entry", "entries"))
			}
			out = append(out, prefixed("each key: ", scalar(fd.MapKey(), p.GetKeys(), true))...)
			out = append(out, prefixed("each value: ", scalar(fd.MapValue(), p.GetValues(), true))...)
		}
	case fd.IsList():
		if p := r.GetRepeated(); p != nil {
			if p.HasMinItems() {
				out = append(out, count("at least", p.GetMinItems(), "item", "items"))
			}
			if p.HasMaxItems() {
				out = append(out, count("at most", p.GetMaxItems(), "item", "items"))
			}
			if p.GetUnique() {
				out = append(out, "no item appears twice")
			}
			out = append(out, prefixed("each item: ", scalar(fd, p.GetItems(), true))...)
		}
		if fd.Kind() == protoreflect.EnumKind {
			out = append(out, "each item: "+oneOf(fd.Enum()))
		}
	default:
		out = append(out, scalar(fd, r, false)...)
	}
	for _, c := range r.GetCel() {
		out = append(out, c.GetMessage())
	}
	for _, c := range CrossField(fd) {
		out = append(out, c.GetMessage())
	}
	return out
}

// scalar says the type rules r of a single value of fd's kind, and the CEL rules of an item,
// key or value (a field's own CEL rules are said by Words).
func scalar(fd protoreflect.FieldDescriptor, r *validate.FieldRules, item bool) []string {
	var out []string
	switch fd.Kind() {
	case protoreflect.StringKind:
		out = append(out, stringWords(r.GetString())...)
	case protoreflect.Int32Kind:
		out = append(out, boundWords(r.GetInt32())...)
	case protoreflect.DoubleKind:
		out = append(out, boundWords(r.GetDouble())...)
	case protoreflect.EnumKind:
		if !fd.IsList() {
			out = append(out, oneOf(fd.Enum()))
		}
	}
	if item {
		for _, c := range r.GetCel() {
			out = append(out, c.GetMessage())
		}
	}
	return out
}

func oneOf(ed protoreflect.EnumDescriptor) string {
	var names []string
	for _, v := range EnumValues(ed) {
		names = append(names, string(v.Name()))
	}
	return "one of: " + strings.Join(names, ", ")
}

func notEmpty(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsList() || fd.IsMap():
		return " with at least one item"
	case fd.Kind() == protoreflect.StringKind:
		return " and not empty"
	case fd.Kind() == protoreflect.EnumKind:
		return " to a value"
	case fd.Kind() == protoreflect.MessageKind:
		return ""
	default:
		return " and not zero"
	}
}

func stringWords(s *validate.StringRules) []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.HasConst() {
		out = append(out, fmt.Sprintf("must be %q", s.GetConst()))
	}
	if s.HasLen() {
		out = append(out, count("exactly", s.GetLen(), "character", "characters"))
	}
	if s.HasMinLen() {
		out = append(out, count("at least", s.GetMinLen(), "character", "characters"))
	}
	if s.HasMaxLen() {
		out = append(out, count("at most", s.GetMaxLen(), "character", "characters"))
	}
	if s.HasPattern() {
		out = append(out, "matches the regular expression "+s.GetPattern())
	}
	if s.HasPrefix() {
		out = append(out, fmt.Sprintf("starts with %q", s.GetPrefix()))
	}
	if s.HasSuffix() {
		out = append(out, fmt.Sprintf("ends with %q", s.GetSuffix()))
	}
	if len(s.GetIn()) > 0 {
		out = append(out, "one of: "+strings.Join(s.GetIn(), ", "))
	}
	if len(s.GetNotIn()) > 0 {
		out = append(out, "none of: "+strings.Join(s.GetNotIn(), ", "))
	}
	switch {
	case s.GetIpv4Prefix():
		out = append(out, "an IPv4 CIDR with its host bits zero, e.g. 10.244.0.0/16")
	case s.GetIpv4():
		out = append(out, "an IPv4 address, e.g. 203.0.113.7")
	case s.GetUri():
		out = append(out, "an absolute URI, e.g. https://api.example.com")
	case s.GetHostname():
		out = append(out, "a host name")
	case s.GetUuid():
		out = append(out, "a UUID")
	}
	return out
}

// bounds is what Int32Rules and DoubleRules have in common.
type bounds[N int32 | float64] interface {
	HasGt() bool
	GetGt() N
	HasGte() bool
	GetGte() N
	HasLt() bool
	GetLt() N
	HasLte() bool
	GetLte() N
	HasConst() bool
	GetConst() N
}

func boundWords[N int32 | float64, R bounds[N]](r R) []string {
	var none R
	if any(r) == any(none) {
		return nil
	}
	format := func(n N) string { return strconv.FormatFloat(float64(n), 'f', -1, 64) }
	var out []string
	if r.HasConst() {
		out = append(out, "must be "+format(r.GetConst()))
	}
	switch {
	case r.HasGte() && r.HasLte():
		out = append(out, fmt.Sprintf("from %s to %s", format(r.GetGte()), format(r.GetLte())))
	default:
		if r.HasGt() {
			out = append(out, "greater than "+format(r.GetGt()))
		}
		if r.HasGte() {
			out = append(out, "at least "+format(r.GetGte()))
		}
		if r.HasLt() {
			out = append(out, "less than "+format(r.GetLt()))
		}
		if r.HasLte() {
			out = append(out, "at most "+format(r.GetLte()))
		}
	}
	return out
}

func prefixed(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}

// count says "at least 1 character", "at most 63 characters".
func count(bound string, n uint64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%s 1 %s", bound, one)
	}
	return fmt.Sprintf("%s %d %s", bound, n, many)
}
