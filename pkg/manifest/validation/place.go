package validation

import (
	"regexp"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// place puts a violation where the user looks for it: a rule that relates fields is declared on
// their message, but by the API's convention its id starts with the field it is about
// ("max_nodes.at_least_min_nodes"), so it moves to that field. Its message then drops the
// field's own name and says the other fields' names as manifests write them (camelCase):
// "spec.max_nodes: must be at least minNodes".
func place(root protoreflect.MessageDescriptor, v Violation) Violation {
	msg, field := resolve(root, v.Field)
	if msg != nil && field == nil {
		// A rule of a whole message: move it to the field its id names, if there is one.
		if name, _, ok := strings.Cut(v.RuleID, "."); ok {
			if fd := msg.Fields().ByName(protoreflect.Name(name)); fd != nil {
				v.Field, field = join(v.Field, name), fd
			}
		}
	}
	if field != nil {
		// "max_nodes must be ...", "min_nodes is only ...": the path names the field already.
		for _, verb := range []string{"must ", "is "} {
			if rest, ok := strings.CutPrefix(v.Message, string(field.Name())+" "+verb); ok {
				v.Message = verb + rest
			}
		}
		msg = field.ContainingMessage()
	}
	if msg != nil {
		v.Message = camelNames(msg, v.Message)
	}
	return v
}

// snakeWord is a word that could be a proto field name.
var snakeWord = regexp.MustCompile(`\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b`)

// camelNames writes the field names of msg that appear in text as their JSON names.
func camelNames(msg protoreflect.MessageDescriptor, text string) string {
	return snakeWord.ReplaceAllStringFunc(text, func(word string) string {
		if fd := msg.Fields().ByName(protoreflect.Name(word)); fd != nil {
			return fd.JSONName()
		}
		return word
	})
}

// resolve follows a violation's path ("spec.default_node_pool", "spec.taints[0]",
// `spec.labels["k"]`) from root. It returns the message the path ends in and, when it ends in a
// field rather than a message, that field; both nil when the path does not resolve.
func resolve(root protoreflect.MessageDescriptor, path string) (protoreflect.MessageDescriptor, protoreflect.FieldDescriptor) {
	msg := root
	if path == "" {
		return msg, nil
	}
	segments := split(path)
	for i, seg := range segments {
		name, _, indexed := strings.Cut(seg, "[")
		if msg == nil {
			return nil, nil
		}
		fd := msg.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return nil, nil
		}
		last := i == len(segments)-1
		element := fd.Message()
		if fd.IsMap() {
			element = fd.MapValue().Message()
		}
		switch {
		case (fd.IsList() || fd.IsMap()) && !indexed:
			// The list or map itself: a rule of the field.
			if last {
				return fd.ContainingMessage(), fd
			}
			return nil, nil
		case element == nil:
			if last {
				return fd.ContainingMessage(), fd
			}
			return nil, nil
		case last && !indexed && !fd.IsList():
			// A singular message field: its rules are the message's.
			return element, nil
		}
		msg = element
	}
	return msg, nil
}

// Camel writes a violation's path as manifests write it: "spec.default_node_pool.max_nodes" reads
// "spec.defaultNodePool.maxNodes"; list indexes and map keys are kept.
func Camel(path string) string {
	var b strings.Builder
	for i, seg := range split(path) {
		if i > 0 {
			b.WriteByte('.')
		}
		name, rest, indexed := strings.Cut(seg, "[")
		parts := strings.Split(name, "_")
		for j := 1; j < len(parts); j++ {
			if parts[j] != "" {
				parts[j] = strings.ToUpper(parts[j][:1]) + parts[j][1:]
			}
		}
		b.WriteString(strings.Join(parts, ""))
		if indexed {
			b.WriteString("[" + rest)
		}
	}
	return b.String()
}

// split cuts a path at the dots between fields, not at those inside a map key's quotes.
func split(path string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			out = append(out, path[start:i])
			start = i + 1
		}
	}
	return append(out, path[start:])
}
