package standin

import (
	"encoding/json"
	"sort"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/protobuf/types/known/structpb"
)

// unknown stands for a value not known yet (a preview's output of another resource). It never
// reaches the cloud: the engine resolves every input before a real Create or Update.
type unknown struct{}

// rpcOptions keep secrets and unknowns: the stand-in says AcceptSecrets, and in a preview inputs
// may be unknown.
var rpcOptions = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, KeepResources: true}

// plainProps is props as plain values, with the top-level keys that were secret: the cloud stores
// values, not Pulumi's wrapping, and the secrets are put back on what goes out.
func plainProps(s *structpb.Struct) (map[string]any, map[string]bool, error) {
	props, err := plugin.UnmarshalProperties(s, rpcOptions)
	if err != nil {
		return nil, nil, errors.Wrap(err, "unmarshal properties")
	}
	out := map[string]any{}
	secret := map[string]bool{}
	for k, v := range props {
		if v.IsNull() {
			continue
		}
		if v.ContainsSecrets() {
			secret[string(k)] = true
		}
		out[string(k)] = plain(v)
	}
	return out, secret, nil
}

// plain is v without Pulumi's wrapping: JSON-like values, and unknown{} for an unknown.
func plain(v resource.PropertyValue) any {
	switch {
	case v.IsNull():
		return nil
	case v.IsComputed():
		return unknown{}
	case v.IsOutput():
		if !v.OutputValue().Known {
			return unknown{}
		}
		return plain(v.OutputValue().Element)
	case v.IsSecret():
		return plain(v.SecretValue().Element)
	case v.IsBool():
		return v.BoolValue()
	case v.IsNumber():
		return v.NumberValue()
	case v.IsString():
		return v.StringValue()
	case v.IsArray():
		out := make([]any, 0, len(v.ArrayValue()))
		for _, item := range v.ArrayValue() {
			out = append(out, plain(item))
		}
		return out
	case v.IsObject():
		out := map[string]any{}
		for k, item := range v.ObjectValue() {
			if !item.IsNull() {
				out[string(k)] = plain(item)
			}
		}
		return out
	}
	// Assets, archives and resource references: none of the served resources takes one.
	return v.Mappable()
}

// property is the PropertyValue of a plain value.
func property(v any) resource.PropertyValue {
	switch v := v.(type) {
	case nil:
		return resource.NewNullProperty()
	case unknown:
		return resource.MakeComputed(resource.NewStringProperty(""))
	case bool:
		return resource.NewBoolProperty(v)
	case int:
		return resource.NewNumberProperty(float64(v))
	case float64:
		return resource.NewNumberProperty(v)
	case string:
		return resource.NewStringProperty(v)
	case []any:
		out := make([]resource.PropertyValue, 0, len(v))
		for _, item := range v {
			out = append(out, property(item))
		}
		return resource.NewArrayProperty(out)
	case []string:
		out := make([]resource.PropertyValue, 0, len(v))
		for _, item := range v {
			out = append(out, resource.NewStringProperty(item))
		}
		return resource.NewArrayProperty(out)
	case map[string]any:
		out := resource.PropertyMap{}
		for k, item := range v {
			out[resource.PropertyKey(k)] = property(item)
		}
		return resource.NewObjectProperty(out)
	}
	return resource.NewPropertyValue(v)
}

// marshal is the wire form of plain values, with the keys in secret (and those the provider
// marks Sensitive) wrapped as secrets.
func marshal(m map[string]any, secret map[string]bool) (*structpb.Struct, error) {
	props := resource.PropertyMap{}
	for k, v := range m {
		pv := property(v)
		if secret[k] {
			pv = resource.MakeSecret(pv)
		}
		props[resource.PropertyKey(k)] = pv
	}
	s, err := plugin.MarshalProperties(props, rpcOptions)
	return s, errors.Wrap(err, "marshal properties")
}

// clone is a deep copy of a plain value, so that a preview can work on olds without touching
// them and a map is never shared between inputs and outputs.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = clone(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = clone(item)
		}
		return out
	}
	return v
}

func cloneMap(m map[string]any) map[string]any { return clone(m).(map[string]any) }

// equal compares plain values as JSON: 3 and 3.0 are the same number, and map order is sorted.
func equal(a, b any) bool {
	if _, ok := a.(unknown); ok {
		return false
	}
	if _, ok := b.(unknown); ok {
		return false
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// keys returns the keys of the maps, once each, sorted.
func keys(maps ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
