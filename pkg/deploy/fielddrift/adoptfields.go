package fielddrift

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// rowsOf are the effects table's rows of the manifest fields sent as the property at path of a
// resource of type typ (the spec fields alone when there are any, as fieldsOf names them).
func rowsOf(table *effects.Table, typ, path string) []effects.Row {
	if table == nil {
		return nil
	}
	var out []effects.Row
	for _, f := range SpecFirst(table.Fields(typ, path)) {
		if row, ok := table.Lookup(f); ok {
			out = append(out, row)
		}
	}
	return out
}

// inManifestTerms is a property's value as the manifest's field says it: a negated field's
// boolean turned round (surgeUpgrade true is disableSurgeUpgrade false).
func inManifestTerms(rows []effects.Row, v any) any {
	b, ok := v.(bool)
	if !ok {
		return v
	}
	for _, row := range rows {
		if row.Negated {
			return !b
		}
	}
	return v
}

// harm orders the effects from harmless to harmful; a field sent with others takes the worst.
var harm = map[effects.Effect]int{effects.Update: 0, effects.Ignored: 1, outcome.Unknown: 2, effects.Refused: 3, effects.Replace: 4}

// decide is what deploying the manifest's value over the live one (in the manifest's terms) does,
// the worst of the rows': a row whose effect depends on the change (a version lowered, surge
// upgrades turned off) is asked with the live value where the field is a plain value, else its
// effect is the row's own.
func decide(rows []effects.Row, input proto.Message, live any) effects.Decision {
	if len(rows) == 0 {
		return effects.Decision{Effect: outcome.Unknown, Reason: "no row of the effects table says what changing it does"}
	}
	var worst effects.Decision
	for i, row := range rows {
		d := effects.Decision{Effect: row.Effect, Reason: row.Reason, Refusal: row.Refusal}
		if row.When != nil {
			if c, ok := liveChange(input, row.Path, live); ok {
				d = row.Decide(c)
			}
		}
		if i == 0 || harm[d.Effect] > harm[worst.Effect] {
			worst = d
		}
	}
	return worst
}

// liveChange is the change from the live value to the manifest's of the plain field at path
// ("spec.kubernetesVersion"): the specs the field is part of, the live one a copy of the
// manifest's with the live value in it. Not ok for a message, list or map field, or a value of
// another kind.
func liveChange(input proto.Message, path string, live any) (effects.Change, bool) {
	parts := strings.Split(path, ".")
	if input == nil || len(parts) < 2 || parts[0] != kindfield.TargetSpec {
		return effects.Change{}, false
	}
	newSpec, ok := specOf(input.ProtoReflect(), false)
	if !ok {
		return effects.Change{}, false
	}
	oldInput := proto.Clone(input)
	oldSpec, _ := specOf(oldInput.ProtoReflect(), true)
	newParent, oldParent := newSpec, oldSpec
	// Walked by its names because the path is data: the effects table's row (Row.Path), which
	// TestEveryRowNamesAFieldOfItsKindAndAResourceItRegisters checks against each kind's fields.
	for _, name := range parts[1 : len(parts)-1] {
		fd := newParent.Descriptor().Fields().ByJSONName(name)
		if fd == nil || fd.Kind() != protoreflect.MessageKind || fd.IsList() || fd.IsMap() {
			return effects.Change{}, false
		}
		newParent, oldParent = newParent.Get(fd).Message(), oldParent.Mutable(fd).Message()
	}
	fd := newParent.Descriptor().Fields().ByJSONName(parts[len(parts)-1])
	if fd == nil || fd.IsList() || fd.IsMap() {
		return effects.Change{}, false
	}
	value, ok := scalar(fd, live)
	if !ok {
		return effects.Change{}, false
	}
	oldParent.Set(fd, value)
	return effects.Change{Old: value, New: newParent.Get(fd), OldSpec: oldSpec, NewSpec: newSpec}, true
}

// specOf is the manifest's spec in a stack input (target.spec); mutable for a copy to change,
// else read only.
func specOf(m protoreflect.Message, mutable bool) (protoreflect.Message, bool) {
	target := m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)
	if target == nil || target.Kind() != protoreflect.MessageKind {
		return nil, false
	}
	spec := target.Message().Fields().ByJSONName(kindfield.TargetSpec)
	if spec == nil || spec.Kind() != protoreflect.MessageKind {
		return nil, false
	}
	if mutable {
		return m.Mutable(target).Message().Mutable(spec).Message(), true
	}
	return m.Get(target).Message().Get(spec).Message(), true
}

// scalar is a JSON value as the value of the plain field fd; not ok for another kind.
func scalar(fd protoreflect.FieldDescriptor, v any) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		return protoreflect.ValueOfBool(b), ok
	case protoreflect.StringKind:
		s, ok := v.(string)
		return protoreflect.ValueOfString(s), ok
	}
	n, ok := numeric(v).(float64)
	if !ok {
		return protoreflect.Value{}, false
	}
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(n)), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(n)), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n)), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n)), true
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n)), true
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(n), true
	}
	return protoreflect.Value{}, false
}
