package policy

import (
	"regexp"
	"strconv"
	"strings"

	"cel.dev/cel-go/common"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// noSuchKey is the key an evaluation error says a map lacks (CEL's "no such key: nodeCont").
func noSuchKey(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	return strings.CutPrefix(err.Error(), "no such key: ")
}

// fieldNames are the names, as manifests write them, of every field of md and of the messages
// under it, each once.
func fieldNames(md protoreflect.MessageDescriptor) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(protoreflect.MessageDescriptor, map[protoreflect.FullName]bool)
	walk = func(md protoreflect.MessageDescriptor, visited map[protoreflect.FullName]bool) {
		if visited[md.FullName()] {
			return
		}
		visited[md.FullName()] = true
		fields := md.Fields()
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			if !seen[fd.JSONName()] {
				seen[fd.JSONName()] = true
				out = append(out, fd.JSONName())
			}
			if fd.Message() != nil && !fd.IsMap() {
				walk(fd.Message(), visited)
			}
		}
	}
	walk(md, map[protoreflect.FullName]bool{})
	return out
}

// hasField tells whether key is the name of a field of md or of a message under it.
func hasField(md protoreflect.MessageDescriptor, key string) bool {
	for _, name := range fieldNames(md) {
		if name == key {
			return true
		}
	}
	return false
}

// unknownStep is the first step of path (spec.nodePools[1].size) that is no field of md, with
// the names of the fields there, for a did-you-mean; ok is false when every step is a field, or
// the path goes into a map (metadata.labels.team), whose keys are the manifest's own.
func unknownStep(md protoreflect.MessageDescriptor, path string) (step string, names []string, ok bool) {
	for _, seg := range segments(path) {
		if _, err := strconv.Atoi(seg); err == nil {
			continue // a list's index
		}
		if md == nil {
			return "", nil, false
		}
		fd := md.Fields().ByJSONName(seg)
		if fd == nil {
			for i := 0; i < md.Fields().Len(); i++ {
				names = append(names, md.Fields().Get(i).JSONName())
			}
			return seg, names, true
		}
		if fd.IsMap() {
			return "", nil, false
		}
		md = fd.Message()
	}
	return "", nil, false
}

// hint is ": did you mean nodeCount?" for the one of names key is a few edits from, "" when
// none is.
func hint(key string, names []string) string {
	best, bestDistance := "", len(key)/2+2
	for _, n := range names {
		if d := apikinds.Distance(strings.ToLower(key), strings.ToLower(n)); d < bestDistance {
			best, bestDistance = n, d
		}
	}
	if best == "" {
		return ""
	}
	return ": did you mean " + best + "?"
}

// kindName is the kind of a manifest's message, as manifests write it.
func kindName(md protoreflect.MessageDescriptor) string { return string(md.Name()) }

// keyAt is where the expression reads key (".nodeCont"), as CEL counts it: line from 1,
// column from 0; the expression's start when it cannot be found.
func keyAt(expression, key string) common.Location {
	m := regexp.MustCompile(`\.\s*` + regexp.QuoteMeta(key) + `\b`).FindStringIndex(expression)
	if m == nil {
		return common.NewLocation(1, 0)
	}
	at := m[0] + strings.Index(expression[m[0]:], key)
	line := strings.Count(expression[:at], "\n") + 1
	return common.NewLocation(line, at-(strings.LastIndex(expression[:at], "\n")+1))
}
