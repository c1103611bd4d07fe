// Package diff tells what deploying one stack input over another would do, field by field, from
// the effects table: before any credential, state or Pulumi engine. `diff OLD NEW` of every
// program and of the clusterplane command stands on it.
package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Secret is what a secret value reads as.
const Secret = "[secret]"

// Change is one changed field and what deploying it does.
type Change struct {
	// Path is the field's path in the manifest as written, e.g. "spec.defaultNodePool.size";
	// provider settings of a stack input read "providerConfig.apiToken".
	Path string `json:"path"`
	// Old and New are the values, as in JSON; null when unset, Secret for secrets.
	Old any `json:"old"`
	New any `json:"new"`
	// Effect is what deploying the change does.
	Effect effects.Effect `json:"effect"`
	// Resource is the registered resource it affects, as "type::name".
	Resource string `json:"resource"`
	// Reason says why, and for a replacement what is lost.
	Reason string `json:"reason"`
	// Refusal, for a refused change, is what the provider does with it deployed anyway:
	// fails-at-preview, fails-at-apply, not-applied, kept, protected or invalid.
	Refusal effects.Refusal `json:"refusal,omitempty"`
}

// Result is every change from one stack input to another.
type Result struct {
	Changes []Change `json:"changes"`
	// Replaces tells whether any change replaces a resource.
	Replaces bool `json:"replaces"`
	// Refuses tells whether any change is refused.
	Refuses bool `json:"refuses"`
	// Cost is what the change does to the monthly cost, when it was priced.
	Cost *cost.Delta `json:"cost,omitempty"`
	// Rotations are the pools rotated instead of replaced, as their rollout blocks allow: the
	// changes with effect rotate, step by step.
	Rotations []rotation.Rotation `json:"rotations,omitempty"`
}

// Blocks tells whether the result must stop a deployment gate: something is refused, or something
// is replaced and replacements are not allowed.
func (r *Result) Blocks(allowReplace bool) bool {
	return r.Refuses || (r.Replaces && !allowReplace)
}

// protectedReason is added to a replacement that deletion protection turns into a refusal.
const protectedReason = "; the cluster has deletionProtection (on unless turned off), so the Pulumi engine refuses to replace it. " +
	"To replace it on purpose, deploy deletionProtection: false first"

// Compare lists every field that differs between two valid stack inputs of one kind (messages with
// `target` and `provider_config`), in the order of the manifest, with what changing it does by
// the kind's table.
func Compare(table *effects.Table, oldInput, newInput proto.Message) (*Result, error) {
	if oldInput == nil || newInput == nil {
		return nil, errors.New("diff: both stack inputs are required")
	}
	if oldInput.ProtoReflect().Descriptor() != newInput.ProtoReflect().Descriptor() {
		return nil, errors.Errorf("diff: %s and %s are different kinds", oldInput.ProtoReflect().Descriptor().Name(),
			newInput.ProtoReflect().Descriptor().Name())
	}
	oldTarget, newTarget := field(oldInput.ProtoReflect(), kindfield.StackInputTarget), field(newInput.ProtoReflect(), kindfield.StackInputTarget)
	if kindName := newTarget.Get(newTarget.Descriptor().Fields().ByJSONName(kindfield.TargetKind)).String(); table == nil || table.Name != kindName {
		return nil, errors.Errorf("diff: no effects are known for kind %q", kindName)
	}
	w := &walker{
		table:   table,
		oldSpec: field(oldTarget, kindfield.TargetSpec),
		newSpec: field(newTarget, kindfield.TargetSpec),
		name:    protofield.String(field(oldTarget, kindfield.TargetMetadata), sharedv1.CloudResourceMetadataFieldName),
		result:  &Result{Changes: []Change{}},
	}
	for _, part := range []struct {
		prefix   string
		old, new protoreflect.Message
	}{
		{kindfield.TargetMetadata + ".", field(oldTarget, kindfield.TargetMetadata), field(newTarget, kindfield.TargetMetadata)},
		{kindfield.TargetSpec + ".", w.oldSpec, w.newSpec},
		{kindfield.StackInputProviderConfig + ".", field(oldInput.ProtoReflect(), kindfield.StackInputProviderConfig), field(newInput.ProtoReflect(), kindfield.StackInputProviderConfig)},
	} {
		if err := w.walk(part.prefix, part.old, part.new); err != nil {
			return nil, err
		}
	}
	w.plan()
	return w.result, nil
}

// plan builds the rotations of the changes carried out by rotation, one per pool.
func (w *walker) plan() {
	var paths []string
	for _, c := range w.result.Changes {
		if c.Effect == effects.Rotate {
			paths = append(paths, c.Path)
		}
	}
	w.result.Rotations = rotation.Decide(w.table, w.oldSpec, w.newSpec, paths)
}

// PriceRotations fills each rotation step's Cost with p: what the pools that exist during the
// step cost a month.
func (r *Result) PriceRotations(p cost.Prices) { rotation.PriceRotations(r.Rotations, p) }

type walker struct {
	table            *effects.Table
	oldSpec, newSpec protoreflect.Message
	// name is the old metadata.name: the name the deployed resources have.
	name   string
	result *Result
}

// walk compares every field of two messages of one type; a field with a row of its own is
// compared whole, a message field without one field by field.
func (w *walker) walk(prefix string, oldMsg, newMsg protoreflect.Message) error {
	fields := oldMsg.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		path := prefix + fd.JSONName()
		row, ok := w.table.Lookup(path)
		if !ok {
			if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
				if err := w.walk(path+".", oldMsg.Get(fd).Message(), newMsg.Get(fd).Message()); err != nil {
					return err
				}
				continue
			}
			if oldMsg.Has(fd) || newMsg.Has(fd) {
				return errors.Errorf("diff: no effect is recorded for %s %s", w.table.Name, path)
			}
			continue
		}
		if equal(fd, oldMsg, newMsg) {
			continue
		}
		w.add(row, fd, oldMsg, newMsg)
	}
	return nil
}

func (w *walker) add(row effects.Row, fd protoreflect.FieldDescriptor, oldMsg, newMsg protoreflect.Message) {
	d := row.Decide(effects.Change{Old: oldMsg.Get(fd), New: newMsg.Get(fd), OldSpec: w.oldSpec, NewSpec: w.newSpec,
		Removed: oldMsg.Has(fd) && !newMsg.Has(fd)})
	effect, reason, refusal := d.Effect, d.Reason, d.Refusal
	if row.Rollout != "" && effect.Blocks() {
		// The cloud cannot make this change to the pool in place; a new pool can have it.
		if ok, why := rotation.Applies(w.newSpec, row); ok {
			effect, reason, refusal = effects.Rotate, rotation.Reason(row, reason), ""
		} else {
			reason += why
		}
	}
	role := row.Resource
	if row.Resource == effects.Stack {
		role = effects.Component
		reason += " (" + strings.Join(w.resources(), ", ") + ")"
	}
	if effect == effects.Replace && w.protected(row.Resource) {
		effect, reason, refusal = effects.Refused, reason+protectedReason, effects.Protected
		if !oldMsg.Has(fd) {
			// Offline, diff cannot see the value the cloud chose when the field was unset.
			reason += "; but this sets the field for the first time: if it names what the cloud already has " +
				"(a refusal's advice to write the value back), the provider changes nothing, and preview and up, " +
				"which ask it, deploy it"
		}
	}
	w.result.Changes = append(w.result.Changes, Change{
		Path:     row.Path,
		Old:      value(fd, oldMsg),
		New:      value(fd, newMsg),
		Effect:   effect,
		Resource: w.table.Types[role] + "::" + w.name,
		Reason:   reason,
		Refusal:  refusal,
	})
	switch effect {
	case effects.Replace:
		w.result.Replaces = true
	case effects.Refused:
		w.result.Refuses = true
	}
}

// protected tells whether deletion protection in the old manifest (what is deployed) covers a
// replacement of role.
func (w *walker) protected(role effects.Role) bool {
	if len(w.table.Protected) == 0 {
		return false
	}
	covered := role == effects.Stack
	for _, r := range w.table.Protected {
		covered = covered || r == role
	}
	fd := w.oldSpec.Descriptor().Fields().ByJSONName(kindfield.SpecDeletionProtection)
	return covered && fd != nil && (!w.oldSpec.Has(fd) || w.oldSpec.Get(fd).Bool())
}

// resources names every resource the stack registers, for a change that replaces them all.
func (w *walker) resources() []string {
	out := make([]string, 0, len(w.table.Types))
	for _, typ := range w.table.Types {
		out = append(out, typ+"::"+w.name)
	}
	sort.Strings(out)
	return out
}

// field is m's message field of the JSON name.
func field(m protoreflect.Message, jsonName string) protoreflect.Message {
	return m.Get(m.Descriptor().Fields().ByJSONName(jsonName)).Message()
}

func equal(fd protoreflect.FieldDescriptor, a, b protoreflect.Message) bool {
	if a.Has(fd) != b.Has(fd) {
		return false
	}
	va, vb := a.Get(fd), b.Get(fd)
	switch {
	case fd.IsList():
		la, lb := va.List(), vb.List()
		if la.Len() != lb.Len() {
			return false
		}
		for i := 0; i < la.Len(); i++ {
			if !equalValue(fd, la.Get(i), lb.Get(i)) {
				return false
			}
		}
		return true
	case fd.IsMap():
		ma, mb := va.Map(), vb.Map()
		if ma.Len() != mb.Len() {
			return false
		}
		same := true
		ma.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			same = mb.Has(k) && equalValue(fd.MapValue(), v, mb.Get(k))
			return same
		})
		return same
	default:
		return equalValue(fd, va, vb)
	}
}

func equalValue(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	if fd.Message() != nil {
		return proto.Equal(a.Message().Interface(), b.Message().Interface())
	}
	return a.Interface() == b.Interface()
}

// value renders a field as JSON would show it: null when unset, Secret for a redacted field.
func value(fd protoreflect.FieldDescriptor, m protoreflect.Message) any {
	if rules.Secret(fd) {
		return Secret
	}
	if fd.HasPresence() && !m.Has(fd) {
		return nil
	}
	v := m.Get(fd)
	switch {
	case fd.IsList():
		out := make([]any, v.List().Len())
		for i := range out {
			out[i] = scalar(fd, v.List().Get(i))
		}
		return out
	case fd.IsMap():
		out := map[string]any{}
		v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			out[k.String()] = scalar(fd.MapValue(), v)
			return true
		})
		return out
	default:
		return scalar(fd, v)
	}
}

func scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		data, err := protojson.Marshal(v.Message().Interface())
		var out any
		if err != nil || json.Unmarshal(data, &out) != nil {
			return nil
		}
		return out
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return int32(v.Enum())
	default:
		return v.Interface()
	}
}

// WriteJSON writes the result as JSON.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return errors.Wrap(enc.Encode(r), "write diff")
}

// WriteText writes the result for people: a summary, then each change with its effect,
// resource, values and reason.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	if len(r.Changes) == 0 {
		b.WriteString("no changes\n")
	} else {
		counts := map[effects.Effect]int{}
		for _, c := range r.Changes {
			counts[c.Effect]++
		}
		var parts []string
		for _, e := range []effects.Effect{effects.Replace, effects.Refused, effects.Rotate, effects.Update, effects.Ignored} {
			if counts[e] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[e], e))
			}
		}
		fmt.Fprintf(&b, "%d %s: %s\n", len(r.Changes), plural(len(r.Changes), "change"), strings.Join(parts, ", "))
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "\n%-8s %s\n", c.Effect, c.Path)
			fmt.Fprintf(&b, "         %s -> %s\n", Show(c.Old), Show(c.New))
			fmt.Fprintf(&b, "         on %s\n", c.Resource)
			fmt.Fprintf(&b, "         %s\n", c.Reason)
		}
	}
	for _, rot := range r.Rotations {
		rotation.WriteRotation(&b, rot)
	}
	if r.Cost != nil && len(r.Changes) > 0 {
		fmt.Fprintf(&b, "\nmonthly cost: %s\n", r.Cost)
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "write diff")
}

// Show is a manifest value as a sentence says it: JSON, or "(unset)".
func Show(v any) string {
	if v == nil {
		return "(unset)"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
