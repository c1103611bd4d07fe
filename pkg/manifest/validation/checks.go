package validation

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The rules CEL cannot say well, checked in Go over the whole message after the proto rules.
const (
	// RuleTokenShape is broken by a value shaped like an API token outside the token's field.
	RuleTokenShape = "value.token_shape"
	// RuleTagCase is broken by two DigitalOcean tags that differ only in case.
	RuleTagCase = "tags.case_insensitive_unique"
	// RuleAPIURLOwnToken is broken by a provider config's API URL without the config's own token:
	// the environment's token goes only to the cloud's own API or the environment's URL.
	RuleAPIURLOwnToken = "api_url.own_token"
	// RuleAPIURLHTTPS is broken by a provider config's API URL that is neither https nor loopback.
	RuleAPIURLHTTPS = "api_url.https"
)

// tokenShaped is the cloud whose published token shape (cloudfacts.Cloud.TokenShape) s holds; false
// when it holds none.
func tokenShaped(s string) (cloudfacts.Cloud, bool) {
	for _, d := range cloudlist.All() {
		if shape := d.TokenShape(); shape != nil && shape.MatchString(s) {
			return d, true
		}
	}
	return nil, false
}

// tokenMessage says why a value shaped like d's token is refused, and where tokens go.
func tokenMessage(d cloudfacts.Cloud) string {
	return "looks like a " + d.Env().Name + " API token, which would reach the cloud in plain text here; " +
		"tokens go in providerConfig.apiToken (a secret) or the " + d.Env().TokenEnv + " environment variable"
}

// tagsIgnoringCase is the cloud of the kind message md, when its provider keeps tags in a set that
// ignores case (cloudfacts.Cloud.TagsIgnoreCase); false for any other message.
func tagsIgnoringCase(md protoreflect.MessageDescriptor) (cloudfacts.Cloud, bool) {
	d, ok := cloudlist.OfMessage(md.FullName())
	if !ok || !d.TagsIgnoreCase() {
		return nil, false
	}
	return d, true
}

// check walks m and returns the violations of the Go rules, with paths as protovalidate writes
// them ("spec.tags[2]", `spec.labels["team"]`). No value appears in a message or, for a map key
// that looks like a token, in a path.
func check(m protoreflect.Message, path string) []Violation {
	out := append(apiURL(m, path), derivedCaseCollisions(m, path)...)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if rules.Secret(fd) {
			return true // the token's own field
		}
		at := join(path, string(fd.Name()))
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, item protoreflect.Value) bool {
				if key, ok := k.Interface().(string); ok {
					if d, shaped := tokenShaped(key); shaped {
						out = append(out, Violation{Field: at, RuleID: RuleTokenShape, Message: "a key " + tokenMessage(d)})
						return true
					}
				}
				out = append(out, checkValue(fd.MapValue(), item, at+"["+strconv.Quote(k.String())+"]")...)
				return true
			})
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				out = append(out, checkValue(fd, list.Get(i), fmt.Sprintf("%s[%d]", at, i))...)
			}
			if d, ok := tagsIgnoringCase(fd.ContainingMessage()); ok && fd.JSONName() == kindfield.SpecTags &&
				fd.Kind() == protoreflect.StringKind {
				out = append(out, caseCollisions(d, list, at)...)
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
		if d, shaped := tokenShaped(v.String()); shaped {
			return []Violation{{Field: at, RuleID: RuleTokenShape, Message: tokenMessage(d)}}
		}
	}
	return nil
}

// apiURL checks a provider config's api_url by cloudfacts.Env.Resolve's rule, offline and with
// the field's place, so that a manifest naming an API URL is refused before anything is asked:
// the URL needs the config's own api_token (the environment's token is never sent to it), and
// https unless its host is loopback. A URL without a scheme is left to the uri rule, which says
// so already. Neither the URL nor the token appears in a message.
func apiURL(m protoreflect.Message, path string) []Violation {
	md := m.Descriptor()
	// The provider config's cloud: its driver names the token rule and the fields.
	driver, ok := cloudlist.ByProviderConfig(md)
	if !ok {
		return nil
	}
	cloud, fields := driver.Env(), driver.ProviderConfig()
	urlName, tokenName := fields.URL, fields.Token
	urlField, tokenField := md.Fields().ByJSONName(urlName), md.Fields().ByJSONName(tokenName)
	if urlField == nil || tokenField == nil || urlField.Kind() != protoreflect.StringKind || !rules.Secret(tokenField) {
		return nil
	}
	raw := m.Get(urlField).String()
	if raw == "" || cloud.Name == "" {
		return nil
	}
	at := join(path, string(urlField.Name()))
	var out []Violation
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && !cloudfacts.SecureURL(raw) {
		out = append(out, Violation{Field: at, RuleID: RuleAPIURLHTTPS, Message: cloudfacts.HTTPSRule})
	}
	if !m.Has(tokenField) {
		out = append(out, Violation{Field: at, RuleID: RuleAPIURLOwnToken, Message: cloud.OwnTokenRule()})
	}
	return out
}

// caseCollisions names each tag that differs from an earlier one only in case, by position: the
// provider of d keeps tags in a set that ignores case (DigitalOcean's: tag.TagsSchema hashes with
// util.HashStringIgnoreCase), so the two would be one tag and the plan would never settle.
func caseCollisions(d cloudfacts.Cloud, list protoreflect.List, at string) []Violation {
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
				Message: fmt.Sprintf("differs from %s[%d] only in case: %s tags ignore case, so the two would be one tag",
					lastSegment(at), j, d.Env().Name)})
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

// derivedCaseCollisions names each tag a manifest m (at path) of a cloud whose tags ignore case
// (DigitalOcean's) would send that differs only in case from another: the module adds to each
// tags list the tags it derives from metadata (labels.Standard: resource-kind, resource-name,
// environment…, every metadata.labels entry), so `metadata.labels {Team: a, team: a}`, or
// `metadata.env: prod` beside `spec.tags: [Environment:prod]`, would send two tags the provider
// keeps as one, and the plan would never settle. A collision inside one list the user wrote is caseCollisions'.
func derivedCaseCollisions(m protoreflect.Message, path string) []Violation {
	md := m.Descriptor()
	metaField, specField := md.Fields().ByJSONName(kindfield.TargetMetadata), md.Fields().ByJSONName(kindfield.TargetSpec)
	d, ignoresCase := tagsIgnoringCase(md)
	if !ignoresCase || metaField == nil || specField == nil || specField.Message() == nil {
		return nil
	}
	meta, ok := m.Get(metaField).Message().Interface().(*sharedv1.CloudResourceMetadata)
	if !ok {
		return nil
	}
	// made holds each derived tag by its lower case, with the field that makes it.
	type madeTag struct{ tag, by string }
	made := map[string]madeTag{}
	var out []Violation
	add := func(tag, by, at string) {
		if other, seen := made[strings.ToLower(tag)]; seen {
			if other.tag != tag {
				out = append(out, Violation{Field: at, RuleID: RuleTagCase, Message: fmt.Sprintf("makes the tag %q, which differs "+
					"only in case from the one %s makes: %s tags ignore case, so the two would be one tag", tag, other.by, d.Env().Name)})
			}
			return
		}
		made[strings.ToLower(tag)] = madeTag{tag: tag, by: by}
	}
	standard := labels.Standard(string(md.Name()), meta)
	keys := make([]string, 0, len(standard))
	for k := range standard {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tag := labels.Tags(map[string]string{k: standard[k]}, nil)[0]
		by := "metadata.labels[" + strconv.Quote(k) + "]"
		if _, label := meta.GetLabels()[k]; !label {
			by = derivedFrom[k]
		}
		add(tag, by, join(path, by))
	}
	// Each tags list of the spec is sent with the derived tags.
	spec := m.Get(specField).Message()
	type tagList struct {
		at   string
		list protoreflect.List
	}
	var lists []tagList
	if fd := spec.Descriptor().Fields().ByJSONName(kindfield.SpecTags); fd != nil && fd.IsList() {
		lists = append(lists, tagList{join(path, "spec.tags"), spec.Get(fd).List()})
	}
	if fd := spec.Descriptor().Fields().ByJSONName(kindfield.SpecDefaultNodePool); fd != nil && fd.Message() != nil && spec.Has(fd) {
		pool := spec.Get(fd).Message()
		if tf := pool.Descriptor().Fields().ByJSONName(kindfield.DefaultNodePoolTags); tf != nil && tf.IsList() {
			lists = append(lists, tagList{join(path, "spec.default_node_pool.tags"), pool.Get(tf).List()})
		}
	}
	for _, l := range lists {
		for i := 0; i < l.list.Len(); i++ {
			tag := l.list.Get(i).String()
			if other, seen := made[strings.ToLower(tag)]; seen && other.tag != tag {
				out = append(out, Violation{Field: fmt.Sprintf("%s[%d]", l.at, i), RuleID: RuleTagCase, Message: fmt.Sprintf(
					"differs only in case from the tag %q %s makes: %s tags ignore case, so the two would be one tag",
					other.tag, other.by, d.Env().Name)})
			}
		}
	}
	return out
}

// derivedFrom is the manifest field behind each label labels.Standard derives.
var derivedFrom = map[string]string{labels.ResourceKind: "kind", labels.ResourceName: "metadata.name",
	labels.ResourceID: "metadata.id", labels.Organization: "metadata.org", labels.Environment: "metadata.env"}
