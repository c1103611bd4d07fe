package body

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/pkg/errors"
)

// Platforms are the values of spec.platform.type: every cloud a driver knows, by its ID, in the
// drivers' order. A body needs only what each cloud is (its ID, name and kinds): the clouds'
// facts (cloudlist), never their drivers, which the drivers' list keeps in the same order.
func Platforms() []string {
	var out []string
	for _, id := range cloudlist.IDs() {
		out = append(out, string(id))
	}
	return out
}

// PlatformName is the cloud's name as people write it ("DigitalOcean"); "" for no cloud a
// driver knows.
func PlatformName(platform string) string {
	c, err := cloudlist.Get(cloudfacts.ID(platform))
	if err != nil {
		return ""
	}
	return c.Env().Name
}

// kindsOf are the kinds of the cloud platform names; false for no cloud a driver knows.
func kindsOf(platform string) (cloudfacts.Kinds, bool) {
	c, err := cloudlist.Get(cloudfacts.ID(platform))
	if err != nil {
		return cloudfacts.Kinds{}, false
	}
	return c.Kinds(), true
}

// poolRegion tells whether a pool of the platform names its cluster's region.
func poolRegion(platform string) bool {
	k, _ := kindsOf(platform)
	return k.PoolRegion
}

// blockType is a block's type, as a type error names it ("an object").
var blockType = reflect.TypeFor[map[string]json.RawMessage]()

// UnmarshalJSON reads a platform as encoding/json reads a struct of a field per cloud would:
// type and each cloud's block by its ID, keys matched without regard to case, null as absent,
// and any other key refused as an unknown field.
func (p *Platform) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	for key, value := range fields {
		switch field := fieldOf(key); {
		case field == "type":
			if err := json.Unmarshal(value, &p.Type); err != nil {
				return withField(err, field)
			}
		case field != "":
			var block map[string]json.RawMessage
			if err := json.Unmarshal(value, &block); err != nil {
				return withField(err, field)
			}
			if block == nil {
				continue
			}
			if p.Blocks == nil {
				p.Blocks = map[string]map[string]json.RawMessage{}
			}
			p.Blocks[field] = block
		default:
			return errors.Errorf("json: unknown field %q", key)
		}
	}
	return nil
}

// MarshalJSON writes the platform as it is read: type, then each cloud's block under its ID, in
// the drivers' order.
func (p Platform) MarshalJSON() ([]byte, error) {
	typ, err := json.Marshal(p.Type)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"type":`), typ...)
	for _, id := range Platforms() {
		block, ok := p.Blocks[id]
		if !ok {
			continue
		}
		data, err := json.Marshal(block)
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"`+id+`":`...), data...)
	}
	return append(out, '}'), nil
}

// fieldOf is the platform's field a key names, without regard to case: type or a cloud's ID;
// "" for none.
func fieldOf(key string) string {
	for _, f := range append([]string{"type"}, Platforms()...) {
		if strings.EqualFold(key, f) {
			return f
		}
	}
	return ""
}

// withField is a type error at the platform's field, which the decoder prefixes with the
// platform's own path (spec.platform).
func withField(err error, field string) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		typeErr.Field = field
		if field != "type" {
			typeErr.Type = blockType
		}
		return typeErr
	}
	return err
}
