package reference

import (
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// RuleSameRegion is broken by a manifest whose spec.region differs from the region of the
// manifest its spec.cluster reads (valueFrom), when both are checked together.
const RuleSameRegion = "region.same_as_cluster"

// Manifest is one valid manifest of a run, for the checks that read several together: the file
// (or document) it was read from and its stack input.
type Manifest struct {
	File string
	Data []byte
	// Input is the parsed stack input (the manifest under target).
	Input proto.Message
}

// RegionMismatches checks that a manifest whose cluster is read from another manifest of
// manifests (spec.cluster.valueFrom naming its kind, name and env) is in that manifest's region:
// a Civo pool is created through its cluster's region, and Civo answers 404 at create for a pool
// whose region is another. A reference to a manifest that is not among manifests is not checked
// (the cluster may be deployed from elsewhere). The problems of manifests[i] are at key i, each
// at the pool's region value.
func RegionMismatches(manifests []Manifest) map[int][]stackinput.Problem {
	byKey := keys(manifests)
	out := map[int][]stackinput.Problem{}
	for i, m := range manifests {
		spec := protofield.At(targetOf(m.Input), kindfield.TargetSpec)
		region := protofield.String(spec, kindfield.SpecRegion)
		key, ok := regionsCluster(spec)
		if !ok {
			continue
		}
		from := protofield.At(spec, kindfield.SpecCluster, sharedv1.StringValueOrRefFieldValueFrom)
		j, ok := byKey[key]
		if !ok || j == i {
			continue
		}
		cluster := manifests[j]
		clusterRegion := protofield.String(protofield.At(targetOf(cluster.Input), kindfield.TargetSpec), kindfield.SpecRegion)
		if clusterRegion == "" || clusterRegion == region {
			continue
		}
		p := stackinput.Problem{File: m.File, Path: "spec.region"}
		if line, column, written, ok := stackinput.Where(m.Data, m.Input, "spec.region"); ok {
			p.Line, p.Column, p.Path = line, column, written
		}
		where := cluster.File
		if line, column, _, ok := stackinput.Where(cluster.Data, cluster.Input, "spec.region"); ok {
			where = fmt.Sprintf("%s:%d:%d", cluster.File, line, column)
		}
		// Both values passed the region rule, so they are region codes and safe to quote.
		p.RuleID = RuleSameRegion
		p.Message = fmt.Sprintf("region %q is not its cluster's: %s %s is in %q (%s)",
			region, protofield.String(targetOf(cluster.Input), kindfield.TargetKind), protofield.String(from, sharedv1.ValueFromRefFieldName), clusterRegion, where)
		p.Hint = "a pool is created in its cluster's region: write " + clusterRegion
		out[i] = append(out[i], p)
	}
	return out
}

// RegionsUnchecked are the indexes of the manifests whose region RegionMismatches cannot check:
// pools with a region whose cluster's manifest is not among manifests. preview and up check
// them against the region the cluster's stack recorded.
func RegionsUnchecked(manifests []Manifest) []int {
	byKey := keys(manifests)
	var out []int
	for i, m := range manifests {
		key, ok := regionsCluster(protofield.At(targetOf(m.Input), kindfield.TargetSpec))
		if _, given := byKey[key]; ok && !given {
			out = append(out, i)
		}
	}
	return out
}

// keys are the manifests' indexes by the key of the stack each deploys, <kind>/<stack>.
func keys(manifests []Manifest) map[string]int {
	byKey := map[string]int{}
	for i, m := range manifests {
		if key := KeyOf(m.Input); key != "" {
			byKey[key] = i
		}
	}
	return byKey
}

// KeyOf is the stack a stack input deploys, as Key names a reference's: `<kind in lower
// case>/<name>[-<env>]`; "" when the manifest names no kind or no name.
func KeyOf(input proto.Message) string {
	target := targetOf(input)
	metadata := protofield.At(target, kindfield.TargetMetadata)
	kind := protofield.String(target, kindfield.TargetKind)
	if kind == "" || protofield.String(metadata, sharedv1.CloudResourceMetadataFieldName) == "" {
		return ""
	}
	return strings.ToLower(kind) + "/" + Stack(protofield.String(metadata, sharedv1.CloudResourceMetadataFieldName), protofield.String(metadata, sharedv1.CloudResourceMetadataFieldEnv))
}

// regionsCluster is the key of the cluster's stack whose region spec's must be: a spec with a
// region and a cluster read by valueFrom (a Civo pool's); false for any other.
func regionsCluster(spec protoreflect.Message) (string, bool) {
	from := protofield.At(spec, kindfield.SpecCluster, sharedv1.StringValueOrRefFieldValueFrom)
	if protofield.String(spec, kindfield.SpecRegion) == "" || from == nil || protofield.String(from, sharedv1.ValueFromRefFieldName) == "" {
		return "", false
	}
	return strings.ToLower(protofield.String(from, sharedv1.ValueFromRefFieldKind)) + "/" +
		Stack(protofield.String(from, sharedv1.ValueFromRefFieldName), protofield.String(from, sharedv1.ValueFromRefFieldEnv)), true
}

// targetOf is the manifest inside a stack input, nil when there is none.
func targetOf(input proto.Message) protoreflect.Message {
	if input == nil {
		return nil
	}
	return protofield.At(input.ProtoReflect(), kindfield.StackInputTarget)
}
