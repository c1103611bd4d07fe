package upgrade

import (
	"context"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ClusterOf is what a plan needs of a manifest (target, the stack input's target, read from
// file, of kind): the cluster to find; false for a node pool (no kubernetes_version). It reads the
// manifest through its fields' names, so that no kind's API is named outside the kind's folder.
// The cluster's Cloud is the caller's to set, from the manifest's cloud's driver: a cluster whose
// cloud cannot be asked (no token) gets a NoCloud that says why at every question.
func ClusterOf(file, kind string, target proto.Message) (Cluster, bool) {
	t := target.ProtoReflect()
	spec := protofield.At(t, kindfield.TargetSpec)
	if spec == nil || spec.Descriptor().Fields().ByJSONName(kindfield.SpecKubernetesVersion) == nil {
		return Cluster{}, false
	}
	md := protofield.At(t, kindfield.TargetMetadata)
	return Cluster{File: file, Kind: kind, Name: text(md, sharedv1.CloudResourceMetadataFieldName), Env: text(md, sharedv1.CloudResourceMetadataFieldEnv),
		Goal: protofield.MapValue(md, sharedv1.CloudResourceMetadataFieldAnnotations, GoalAnnotation), ClusterName: text(spec, kindfield.SpecClusterName),
		Region: text(spec, kindfield.SpecRegion), Version: text(spec, kindfield.SpecKubernetesVersion), Window: windowOf(spec)}, true
}

// text is m's string or enum field of the JSON name, as a manifest writes it, "" when none.
func text(m protoreflect.Message, jsonName string) string {
	if m == nil {
		return ""
	}
	fd := m.Descriptor().Fields().ByJSONName(jsonName)
	switch {
	case fd == nil:
		return ""
	case fd.Kind() == protoreflect.EnumKind:
		if v := fd.Enum().Values().ByNumber(m.Get(fd).Enum()); v != nil {
			return string(v.Name())
		}
		return ""
	case fd.Kind() == protoreflect.StringKind:
		return m.Get(fd).String()
	}
	return ""
}

// NoCloud is a cloud that cannot be asked, and says why at every question: a cluster without a
// token is a mistake to fix, not a blocked upgrade.
type NoCloud struct{ Err error }

func (n NoCloud) Find(context.Context, string, string, string) (Live, bool, error) {
	return Live{}, false, n.Err
}
func (n NoCloud) Offer(context.Context, Live) (Offer, error) { return Offer{}, n.Err }
func (n NoCloud) Lint(context.Context, Live) ([]Diagnostic, error) {
	return nil, n.Err
}
func (n NoCloud) Objects(context.Context, Live) (Lister, error) { return nil, n.Err }

func (n NoCloud) Health(context.Context, Live) (Health, error) { return Health{}, n.Err }
