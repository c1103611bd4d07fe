package discover

import (
	"encoding/json"

	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// object is a manifest, or a part of one, as a manifest writes it: its keys are the fields' JSON
// names ("clusterName") and enum values are their names ("fra1", "any"). pkg/deploy/discover builds
// manifests this way because it knows no kind's API: a kind's API is imported only by its own
// folder and the list of kinds (iac/pulumi/registry), and discover is given the kinds instead.
type object = map[string]any

// message turns a manifest's object into the message of its kind, found by name in the kinds
// discover was given. Unknown keys are refused, so a misspelt field fails instead of vanishing.
func message(list kinds.List, kind string, doc object) (proto.Message, error) {
	if len(list) == 0 {
		return nil, errors.Errorf("write a %s manifest: no kinds given", kind)
	}
	k, ok := list.ByName(kind)
	if !ok {
		return nil, errors.Errorf("write a %s manifest: no such kind among those given", kind)
	}
	// The target of an empty stack input is a read-only empty message; New gives a fresh one of
	// the same type to fill.
	msg := apikinds.Target(k.NewStackInput()).ProtoReflect().New()
	dropUnknownEnums(msg.Descriptor(), doc)
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, errors.Wrapf(err, "write a %s manifest", kind)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(js, msg.Interface()); err != nil {
		return nil, errors.Wrapf(err, "write a %s manifest", kind)
	}
	return msg.Interface(), nil
}

// dropUnknownEnums leaves out the enum values the kind does not know (a cluster type or CNI a
// newer cloud offers): left out, the field keeps its unspecified zero and is not written, as a
// value this version cannot name should be.
func dropUnknownEnums(md protoreflect.MessageDescriptor, doc object) {
	for key, v := range doc {
		fd := md.Fields().ByJSONName(key)
		if fd == nil || fd.IsMap() {
			continue
		}
		switch {
		case fd.Kind() == protoreflect.EnumKind && !fd.IsList():
			if s, ok := v.(string); ok && fd.Enum().Values().ByName(protoreflect.Name(s)) == nil {
				delete(doc, key)
			}
		case fd.Message() != nil && !fd.IsList():
			if o, ok := v.(object); ok {
				dropUnknownEnums(fd.Message(), o)
			}
		}
	}
}

// raw is a message of a shared API (metadata, a value or reference, a taint) as the JSON a
// manifest writes for it.
func raw(m proto.Message) json.RawMessage {
	js, err := protojson.Marshal(m)
	if err != nil {
		// Marshalling a valid message of a linked-in type does not fail; should it, null
		// leaves the field unset and the tests say so.
		return json.RawMessage("null")
	}
	return js
}
