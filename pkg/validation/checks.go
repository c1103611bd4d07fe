package validation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/rules"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The rules CEL cannot say well, checked in Go over the whole message after the proto rules.
const (
	// RuleTokenShape is broken by a value shaped like an API token outside the token's field.
	RuleTokenShape = "value.token_shape"
	// RuleTagCase is broken by two DigitalOcean tags that differ only in case.
	RuleTagCase = "tags.case_insensitive_unique"
)

// digitalOceanToken is the published shape of DigitalOcean's API tokens, the one secret scanners
// look for: dop_v1_ (personal access token), doo_v1_ (OAuth token) or dor_v1_ (OAuth refresh
// token), then 64 hexadecimal digits.
var digitalOceanToken = regexp.MustCompile(`do[opr]_v1_[0-9a-f]{64}`)

const tokenMessage = "looks like a DigitalOcean API token, which would reach the cloud in plain text here; " +
	"tokens go in providerConfig.apiToken (a secret) or the DIGITALOCEAN_TOKEN environment variable"

// digitalOceanPackage is where the DigitalOcean kinds live: their tags are a case-insensitive set.
const digitalOceanPackage = "clusterplane.provider.digitalocean."

// check walks m and returns the violations of the Go rules, with paths as protovalidate writes
// them ("spec.tags[2]", `spec.labels["team"]`). No value appears in a message or, for a map key
// that looks like a token, in a path.
func check(m protoreflect.Message, path string) []Violation {
	var out []Violation
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if rules.Secret(fd) {
			return true // the token's own field
		}
		at := join(path, string(fd.Name()))
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, item protoreflect.Value) bool {
				if key, ok := k.Interface().(string); ok && digitalOceanToken.MatchString(key) {
					out = append(out, Violation{Field: at, RuleID: RuleTokenShape, Message: "a key " + tokenMessage})
					return true
				}
				out = append(out, checkValue(fd.MapValue(), item, at+"["+strconv.Quote(k.String())+"]")...)
				return true
			})
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				out = append(out, checkValue(fd, list.Get(i), fmt.Sprintf("%s[%d]", at, i))...)
			}
			if fd.Name() == "tags" && fd.Kind() == protoreflect.StringKind &&
				strings.HasPrefix(string(fd.ContainingMessage().FullName()), digitalOceanPackage) {
				out = append(out, caseCollisions(list, at)...)
			}
		default:
			out = append(out, checkValue(fd, v, at)...)
		}
		return true
	})
	return out
}

func checkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, at string) []Violation {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return check(v.Message(), at)
	case protoreflect.StringKind:
		if digitalOceanToken.MatchString(v.String()) {
			return []Violation{{Field: at, RuleID: RuleTokenShape, Message: tokenMessage}}
		}
	}
	return nil
}

// caseCollisions names each tag that differs from an earlier one only in case, by position: the
// provider keeps DigitalOcean tags in a set that ignores case (tag.TagsSchema hashes with
// util.HashStringIgnoreCase), so the two would be one tag and the plan would never settle.
func caseCollisions(list protoreflect.List, at string) []Violation {
	var out []Violation
	first := map[string]int{}
	for i := 0; i < list.Len(); i++ {
		tag := list.Get(i).String()
		j, seen := first[strings.ToLower(tag)]
		if !seen {
			first[strings.ToLower(tag)] = i
			continue
		}
		if list.Get(j).String() != tag { // an exact repeat is the unique rule's
			out = append(out, Violation{Field: fmt.Sprintf("%s[%d]", at, i), RuleID: RuleTagCase,
				Message: fmt.Sprintf("differs from %s[%d] only in case: DigitalOcean tags ignore case, so the two would be one tag", lastSegment(at), j)})
		}
	}
	return out
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func lastSegment(path string) string {
	return path[strings.LastIndex(path, ".")+1:]
}
