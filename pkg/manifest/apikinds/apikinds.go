// Package apikinds is what the API declares, read without parsing a file: its kinds (every kind
// linked in, apis/clusterplane/all), the kind nearest a mistyped name, the distance between two
// names by which it is found, and the manifest inside a stack input. Both the manifests' reader
// (pkg/manifest/stackinput) and the policies (pkg/change/policy) read it, without linking the
// reader's YAML decoding or the Pulumi SDK.
package apikinds

import (
	"maps"
	"slices"
	"strings"

	_ "github.com/clusterplane/clusterplane/apis/clusterplane/all"
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Target returns the manifest inside a stack-input message.
func Target(input proto.Message) proto.Message {
	m := input.ProtoReflect()
	return m.Get(m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)).Message().Interface()
}

// KindOf is the kind whose messages a file of the API declares: its package is
// clusterplane.provider.<cloud>.<kind in lower case>.v1, and one of the package's messages is
// the kind.
func KindOf(file protoreflect.FileDescriptor) string {
	parts := strings.Split(string(file.Package()), ".")
	if len(parts) < 2 {
		return ""
	}
	lower, kind := parts[len(parts)-2], ""
	protoregistry.GlobalFiles.RangeFilesByPackage(file.Package(), func(f protoreflect.FileDescriptor) bool {
		for i := 0; i < f.Messages().Len(); i++ {
			if name := string(f.Messages().Get(i).Name()); strings.ToLower(name) == lower {
				kind = name
			}
		}
		return kind == ""
	})
	return kind
}

// Kinds are the kinds of every registered API file, sorted: every kind, since this package
// links them all (apis/clusterplane/all).
func Kinds() []string {
	seen := map[string]bool{}
	protoregistry.GlobalFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if strings.HasPrefix(string(f.Package()), "clusterplane.provider.") {
			if k := KindOf(f); k != "" {
				seen[k] = true
			}
		}
		return true
	})
	return slices.Sorted(maps.Keys(seen))
}

// NearestKind is the kind a mistyped name was likely meant to be (a letter or two off, in any
// case), "" when none is near.
func NearestKind(name string) string {
	best, bestDist := "", len(name)/3+1
	for _, k := range Kinds() {
		if d := Distance(strings.ToLower(name), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// Distance is the edit distance of a and b (letters added, removed, changed, or two neighbours
// swapped), bounded: strings longer than 64 are far.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	// Three rows: the one before the previous serves the swap of two neighbouring letters
	// (s-2vpcu for s-2vcpu), which people type as often as a wrong letter and counts as one edit.
	before, prev := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev = prev, cur
	}
	return prev[len(b)]
}
