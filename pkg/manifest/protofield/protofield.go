// Package protofield reads a message's fields by name, for code that handles every kind without
// naming its Go types (costs, rotations, upgrade plans). Each reader answers the zero value when m
// is nil or has no such field of that kind, so a kind without the field reads as unset. Callers
// name the fields by the constants tools/fieldsgen generates (apis/clusterplane/kindfield for the
// kinds' messages, <Message>Field<Field> in the shared API packages), not by strings, so that a
// field renamed in its .proto fails them to compile. Descriptor lookups elsewhere do the same
// with Fields().ByJSONName (the constants hold JSON names, which name a field as surely as its
// proto name): TestNoFieldIsLookedUpByAStringLiteral refuses a literal in either.
package protofield

import "google.golang.org/protobuf/reflect/protoreflect"

// Message is m's message field of the proto name, nil when there is none.
func Message(m protoreflect.Message, name protoreflect.Name) protoreflect.Message {
	if m == nil {
		return nil
	}
	fd := m.Descriptor().Fields().ByName(name)
	if fd == nil || fd.Message() == nil {
		return nil
	}
	return m.Get(fd).Message()
}

// At is the message below m at the path of JSON names (as a manifest writes them,
// "defaultNodePool"), nil when a step is not a message field.
func At(m protoreflect.Message, jsonPath ...string) protoreflect.Message {
	for _, name := range jsonPath {
		fd := of(m, name, protoreflect.MessageKind)
		if fd == nil {
			return nil
		}
		m = m.Get(fd).Message()
	}
	return m
}

// DescriptorAt is the message type below md at the path of JSON names, nil when a step is not
// a message field: what At reads, for code that has a type and no value (a stack input's
// target.status.outputs, the kind's stack outputs).
func DescriptorAt(md protoreflect.MessageDescriptor, jsonPath ...string) protoreflect.MessageDescriptor {
	for _, name := range jsonPath {
		if md == nil {
			return nil
		}
		fd := md.Fields().ByJSONName(name)
		if fd == nil || fd.Message() == nil {
			return nil
		}
		md = fd.Message()
	}
	return md
}

// String is m's string field of the JSON name (as a manifest writes it), "" when none.
func String(m protoreflect.Message, jsonName string) string {
	if fd := of(m, jsonName, protoreflect.StringKind); fd != nil {
		return m.Get(fd).String()
	}
	return ""
}

// Int is m's int32 field of the JSON name, 0 when none.
func Int(m protoreflect.Message, jsonName string) int64 {
	if fd := of(m, jsonName, protoreflect.Int32Kind); fd != nil {
		return m.Get(fd).Int()
	}
	return 0
}

// Bool is m's bool field of the JSON name, false when none.
func Bool(m protoreflect.Message, jsonName string) bool {
	if fd := of(m, jsonName, protoreflect.BoolKind); fd != nil {
		return m.Get(fd).Bool()
	}
	return false
}

// MapValue is the value at key of m's map field of the JSON name (map<string, string>, as
// metadata.annotations), "" when there is none.
func MapValue(m protoreflect.Message, jsonName, key string) string {
	if m == nil {
		return ""
	}
	fd := m.Descriptor().Fields().ByJSONName(jsonName)
	if fd == nil || !fd.IsMap() || fd.MapKey().Kind() != protoreflect.StringKind || fd.MapValue().Kind() != protoreflect.StringKind {
		return ""
	}
	if v := m.Get(fd).Map().Get(protoreflect.ValueOfString(key).MapKey()); v.IsValid() {
		return v.String()
	}
	return ""
}

// of is m's field of the JSON name and kind, nil when m is nil or has none.
func of(m protoreflect.Message, jsonName string, kind protoreflect.Kind) protoreflect.FieldDescriptor {
	if m == nil {
		return nil
	}
	if fd := m.Descriptor().Fields().ByJSONName(jsonName); fd != nil && fd.Kind() == kind {
		return fd
	}
	return nil
}
