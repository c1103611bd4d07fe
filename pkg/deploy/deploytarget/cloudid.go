package deploytarget

import (
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
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
	target := protofield.At(input.ProtoReflect(), kindfield.StackInputTarget)
	return protofield.MapValue(protofield.At(target, kindfield.TargetMetadata), sharedv1.CloudResourceMetadataFieldAnnotations, CloudIDAnnotation)
}
