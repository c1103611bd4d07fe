package deploy

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// CloudIDAnnotation is the manifest annotation (metadata.annotations) that records the cloud's id
// of the cluster or node pool the manifest describes: discover writes it, adopt reads it. The
// modules never send annotations to the cloud.
const CloudIDAnnotation = "clusterplane.dev/cloud-id"

// CloudID is the cloud id a manifest records in its CloudIDAnnotation; "" when it records none.
func CloudID(input proto.Message) string {
	if input == nil {
		return ""
	}
	m := input.ProtoReflect()
	target := m.Descriptor().Fields().ByName("target")
	if target == nil || target.Kind() != protoreflect.MessageKind {
		return ""
	}
	t := m.Get(target).Message()
	metadata := t.Descriptor().Fields().ByName("metadata")
	if metadata == nil || metadata.Kind() != protoreflect.MessageKind {
		return ""
	}
	md := t.Get(metadata).Message()
	annotations := md.Descriptor().Fields().ByName("annotations")
	if annotations == nil || !annotations.IsMap() {
		return ""
	}
	v := md.Get(annotations).Map().Get(protoreflect.ValueOfString(CloudIDAnnotation).MapKey())
	if !v.IsValid() {
		return ""
	}
	return v.String()
}
