package fielddrift

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// NotReplacedByEngine drops from refused the replacements deletion protection refuses that the
// engine's preview (res) does not make: a field newly written with the value the cloud already
// has (spec.vpc set to the cluster's own VPC, as a refusal's advice asks) replaces nothing,
// because the provider compares with what it read, not with the manifest before. The providers
// are the truth about what a change does.
func NotReplacedByEngine(refused []diff.Change, res stackstate.Result) []diff.Change {
	replaced := map[string]bool{}
	for _, s := range res.Steps {
		switch apitype.OpType(s.Action) {
		case apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced:
			replaced[s.Type+"::"+s.Name] = true
		}
	}
	var out []diff.Change
	for _, c := range refused {
		if OnPaper(c) && !replaced[c.Resource] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// NotApplied tells a refusal of a change the provider never sends (a DigitalOcean pool's labels
// emptied): the cloud may hold the manifest's value already, made so outside clusterplane.
func NotApplied(c diff.Change) bool {
	return c.Refusal == effects.NotApplied
}

// HeldByCloud drops the refusals of changes the provider never sends (notApplied) that the cloud
// already holds: res previews the manifest against the cloud, read first, and no step changes the
// field, so up has nothing to send and only records what is so. Without it, a user who did what
// the refusal advises (removed the labels in the cloud) could never deploy the manifest.
func HeldByCloud(refused []diff.Change, t deploytarget.Target, res stackstate.Result) []diff.Change {
	differs := map[string]diff.Change{}
	for _, f := range driftedFields(t.Effects, res.Steps) {
		differs[f.Field] = diff.Change{}
	}
	var out []diff.Change
	for _, c := range refused {
		if NotApplied(c) && !Among(c.Path, differs) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// OnPaper tells a refusal the engine may not agree with: a replacement refused for deletion
// protection, of a field the manifest before left unset (the cloud chose its value then).
func OnPaper(c diff.Change) bool {
	return c.Refusal == effects.Protected && c.Old == nil
}

// WithValues is input with each field of fields set to what the cloud had (Live): the manifest
// that describes the cloud as an up found it, before it put those fields back. A field that is no
// single manifest path ("a or b", a property no field sends), or whose value does not fit it,
// keeps input's value.
func WithValues(input proto.Message, fields []outcome.FieldDrift) proto.Message {
	out := input
	for _, f := range fields {
		if next, err := withValue(out, f.Field, f.Live); err == nil {
			out = next
		}
	}
	return out
}

// withValue is input with the manifest field at path (as diff names it, "spec.nodeCount") set to
// v, through the JSON form both the manifest and the cloud's values are read in.
func withValue(input proto.Message, path string, v any) (proto.Message, error) {
	if path == "" || strings.Contains(path, " ") {
		return nil, errors.Errorf("%q is not one manifest field", path)
	}
	if holds(input, path, v) {
		// Nothing to set: status asks this of every stack, whose recorded counts and sizes are
		// most often the manifest's, and the JSON round trip below costs more than reading the
		// stack's records.
		return input, nil
	}
	return roundTrip(input, path, v)
}

// roundTrip is withValue through the JSON form: input written as JSON, v set at path, read back.
func roundTrip(input proto.Message, path string, v any) (proto.Message, error) {
	b, err := protojson.Marshal(input)
	if err != nil {
		return nil, errors.Wrap(err, "write the manifest as JSON")
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, errors.Wrap(err, "read the manifest's JSON")
	}
	parts := append([]string{kindfield.StackInputTarget}, strings.Split(path, ".")...)
	m := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
	if b, err = json.Marshal(doc); err != nil {
		return nil, errors.Wrap(err, "write the manifest with the cloud's value")
	}
	out := input.ProtoReflect().New().Interface()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, out); err != nil {
		return nil, errors.Wrapf(err, "the cloud's value of %s does not fit the manifest", path)
	}
	return out, nil
}

// holds tells that input already holds v at path (under its target, as withValue names fields), so
// that withValue would give input back: true only for a string, bool or integer field holding v
// (set, or unset where unset is its zero value), v of the type JSON reads it as (a string, a
// bool, a float64 of the same whole number). Any other case, a list, a map, an enum, a message,
// a field under a message unset, is left to the round trip.
func holds(input proto.Message, path string, v any) bool {
	m := input.ProtoReflect()
	parts := append([]string{kindfield.StackInputTarget}, strings.Split(path, ".")...)
	for i, p := range parts {
		fd := m.Descriptor().Fields().ByJSONName(p)
		if fd == nil || fd.IsList() || fd.IsMap() {
			return false
		}
		if i < len(parts)-1 {
			if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
				return false
			}
			m = m.Get(fd).Message()
			continue
		}
		// A field without presence left unset holds its zero value: setting that leaves it unset.
		return (m.Has(fd) || !fd.HasPresence()) && scalarHolds(fd, m.Get(fd), v)
	}
	return false
}

// scalarHolds tells that the field fd's value is v, as JSON reads values.
func scalarHolds(fd protoreflect.FieldDescriptor, value protoreflect.Value, v any) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s, ok := v.(string)
		return ok && s == value.String()
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		return ok && b == value.Bool()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		f, ok := v.(float64)
		// Below 2^53 a float64 holds every whole number exactly.
		return ok && math.Abs(f) < 1<<53 && f == math.Trunc(f) && int64(f) == value.Int()
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		f, ok := v.(float64)
		return ok && f >= 0 && f < 1<<53 && f == math.Trunc(f) && uint64(f) == value.Uint()
	}
	return false
}
