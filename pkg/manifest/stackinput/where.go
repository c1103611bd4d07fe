package stackinput

import (
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"google.golang.org/protobuf/proto"
)

// Where is where data, a text Parse read into a message like input, writes field's value: the line
// and column of the value (of `fra2` in `region: fra2`, which is what a warning is about), and the
// field's path as the file writes it ("spec.kubernetesVersion"). field is a path of proto
// names from the manifest, as the validation rules name them ("spec.kubernetes_version",
// "spec.node_pools[1].size"), for a bare manifest and a stack input alike, or a stack input's
// "provider_config.<field>". ok is false when the
// text does not write the field.
func Where(data []byte, input proto.Message, field string) (line, column int, written string, ok bool) {
	root, problem := document(data, "")
	if problem != nil {
		return 0, 0, "", false
	}
	scratch := input.ProtoReflect().New().Interface()
	d := &decoder{at: map[string]position{}, values: map[string]position{}}
	checked, path := scratch, "target."+field
	if strings.HasPrefix(field, "provider_config.") {
		path = field // a stack input's own field, beside its target
	}
	if isManifest(root) {
		m := scratch.ProtoReflect()
		fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)
		if fd == nil {
			return 0, 0, "", false
		}
		checked, path = m.Mutable(fd).Message().Interface(), field
	}
	d.root = checked.ProtoReflect().Descriptor()
	d.message(root, checked.ProtoReflect(), "", "")
	at, ok := d.values[path]
	if !ok {
		// An item of a list or a map is written where its value is.
		at, ok = d.at[path]
	}
	return at.line, at.column, at.written, ok
}
