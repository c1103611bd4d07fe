package stackinput

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// position is where a field stands in the file and how its path was written there.
type position struct {
	line, column int
	written      string
}

// decoder fills a message from a YAML 1.2 node tree (JSON is YAML), strictly: a duplicate key, an
// anchor, alias or tag, and a value of another type than its field's are problems, each with
// its position. Values are never copied into a problem.
type decoder struct {
	file string
	// root is the message the file fills, for the hint that names where a misplaced field
	// belongs.
	root     protoreflect.MessageDescriptor
	problems []Problem
	// at maps a field path as the validation rules name it (proto names, `[0]`, `["key"]`) to
	// where the field is written.
	at map[string]position
	// values maps the same paths to where each field's value is written, when it is asked for
	// (Where): a warning about a value points at the value, not at its key.
	values map[string]position
	// meant are the paths, as the file would write them, of the fields an unknown key was
	// probably meant to be (nodeCont for spec.defaultNodePool.nodeCount, or nodeCount written
	// one level too far out): while such a field is not written, its rules only echo the
	// unknown key's problem (explained).
	meant []string
}

func (d *decoder) fail(n *yaml.Node, written, rule, message, hint string) {
	d.problems = append(d.problems, Problem{File: d.file, Line: n.Line, Column: n.Column, Path: written,
		RuleID: rule, Message: message, Hint: hint})
}

// plain reports (and refuses) what strict input does not allow on any node: anchors, aliases and
// explicit tags, which can hide, repeat or retype a value.
func (d *decoder) plain(n *yaml.Node, written string) bool {
	switch {
	case n.Kind == yaml.AliasNode:
		d.fail(n, written, "yaml.alias", "aliases (*name) are not allowed", "write the value out; a token starting with * or & must be quoted")
	case n.Anchor != "":
		d.fail(n, written, "yaml.anchor", "anchors (&name) are not allowed", "a token starting with & or * must be quoted")
	case n.Style&yaml.TaggedStyle != 0:
		d.fail(n, written, "yaml.tag", "tags (!!type or !name) are not allowed", "a token starting with ! must be quoted")
	default:
		return true
	}
	return false
}

// isNull tells whether n is YAML's null (`~`, `null` or nothing), which leaves a field unset.
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// identifier is a key that may be shown: an ordinary identifier (`highlyAvailable`, `node_pools`)
// is, anything else could be a token written where a key was expected (`{apiToken <token>}` makes
// the token part of a key). Tokens mix letters with many digits (DigitalOcean's are dop_v1_ and
// 64 hex digits), so a key of letters and underscores with at most two digits is no token.
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,47}$`)

func shown(key string) string {
	digits := 0
	for _, c := range key {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if identifier.MatchString(key) && digits <= 2 {
		return key
	}
	return "(key)"
}

func join(written, name string) string {
	if written == "" {
		return name
	}
	return written + "." + name
}

// message fills m from the mapping n. protoPath and written name m's place.
func (d *decoder) message(n *yaml.Node, m protoreflect.Message, protoPath, written string) {
	if !d.plain(n, written) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, written, "yaml.type", "must be a mapping of fields", messageHint(m.Descriptor()))
		return
	}
	fields := m.Descriptor().Fields()
	seen := map[protoreflect.FieldNumber]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !d.plain(k, written) {
			continue
		}
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			d.fail(k, written, "yaml.key", "keys must be field names", "")
			continue
		}
		fd := fields.ByJSONName(k.Value)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(k.Value))
		}
		path := join(written, k.Value)
		if fd == nil {
			hint, near := nearest(k.Value, fields)
			meant := ""
			if near {
				meant = join(written, strings.TrimSuffix(strings.TrimPrefix(hint, "did you mean "), "?"))
			}
			if other := otherCloud(m.Descriptor(), k.Value); other != "" {
				hint, meant = other, ""
			}
			if block := d.belongsTo(k.Value, written); block != "" {
				hint, meant = k.Value+" belongs to "+block, movedTo(block, k.Value)
				if k.Value == sharedv1.CloudResourceMetadataFieldName {
					hint, meant = d.nameHint(m.Descriptor(), written, block), ""
				}
			}
			if meant != "" {
				d.meant = append(d.meant, meant)
			}
			if same := caseOf(k.Value, fields); same != nil {
				// The field is there in another case: its rules (required, const) would only
				// repeat this problem at a spelling the user never wrote, so they stand here.
				hint = "field names are case-sensitive: write " + same.JSONName()
				d.at[join(protoPath, string(same.Name()))] = position{k.Line, k.Column, join(written, shown(k.Value))}
			}
			d.fail(k, join(written, shown(k.Value)), "field.unknown", "unknown field", hint)
			continue
		}
		if seen[fd.Number()] {
			d.fail(k, path, "yaml.duplicate_key", "is given twice", "keep one")
			continue
		}
		seen[fd.Number()] = true
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() && m.WhichOneof(o) != nil && !isNull(v) {
			d.fail(k, path, "oneof.one", fmt.Sprintf("only one of %s may be given", oneofNames(o)), "")
			continue
		}
		fieldPath := join(protoPath, string(fd.Name()))
		d.at[fieldPath] = position{k.Line, k.Column, path}
		if d.values != nil {
			d.values[fieldPath] = position{v.Line, v.Column, path}
		}
		d.field(v, m, fd, fieldPath, path)
	}
}

func (d *decoder) field(v *yaml.Node, m protoreflect.Message, fd protoreflect.FieldDescriptor, protoPath, written string) {
	if !d.plain(v, written) || isNull(v) {
		return
	}
	switch {
	case fd.IsList():
		if v.Kind != yaml.SequenceNode {
			d.fail(v, written, "yaml.type", "must be a list", "write `- item` lines or [a, b]")
			return
		}
		list := m.Mutable(fd).List()
		for i, item := range v.Content {
			at := fmt.Sprintf("%s[%d]", protoPath, i)
			itemWritten := fmt.Sprintf("%s[%d]", written, i)
			d.at[at] = position{item.Line, item.Column, itemWritten}
			if fd.Message() != nil {
				elem := list.NewElement()
				d.message(item, elem.Message(), at, itemWritten)
				list.Append(elem)
			} else if val, ok := d.scalar(item, fd, itemWritten); ok {
				list.Append(val)
			}
		}
	case fd.IsMap():
		if v.Kind != yaml.MappingNode {
			d.fail(v, written, "yaml.type", "must be a mapping of keys to values", "")
			return
		}
		mp := m.Mutable(fd).Map()
		seen := map[string]bool{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], v.Content[i+1]
			if !d.plain(k, written) {
				continue
			}
			keyWritten := written + "[" + strconv.Quote(shown(k.Value)) + "]"
			if k.Kind != yaml.ScalarNode {
				d.fail(k, written, "yaml.key", "keys must be strings", "")
				continue
			}
			if seen[k.Value] {
				d.fail(k, keyWritten, "yaml.duplicate_key", "is given twice", "keep one")
				continue
			}
			seen[k.Value] = true
			at := protoPath + "[" + strconv.Quote(k.Value) + "]"
			d.at[at] = position{k.Line, k.Column, written + "[" + strconv.Quote(k.Value) + "]"}
			if value, ok := d.scalar(val, fd.MapValue(), keyWritten); ok {
				mp.Set(protoreflect.ValueOfString(k.Value).MapKey(), value)
			}
		}
	case fd.Message() != nil:
		d.message(v, m.Mutable(fd).Message(), protoPath, written)
	default:
		if val, ok := d.scalar(v, fd, written); ok {
			m.Set(fd, val)
		}
	}
}

// scalar reads a single value of fd's kind. Plain scalars resolve as YAML 1.2's core schema
// does, and a value resolved to another type than the field's is a problem: `1.31` is a number
// and a version field wants a string, so it must be quoted.
func (d *decoder) scalar(n *yaml.Node, fd protoreflect.FieldDescriptor, written string) (protoreflect.Value, bool) {
	if !d.plain(n, written) {
		return protoreflect.Value{}, false
	}
	if n.Kind != yaml.ScalarNode {
		d.fail(n, written, "yaml.type", "must be a single value, not a list or mapping", "")
		return protoreflect.Value{}, false
	}
	wrongType := func(want, hint string) (protoreflect.Value, bool) {
		d.fail(n, written, "yaml.type", "must be "+want, hint)
		return protoreflect.Value{}, false
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		if n.Tag != "!!str" {
			return wrongType("a string", `quote it, e.g. "1.31"`)
		}
		return protoreflect.ValueOfString(n.Value), true
	case protoreflect.BoolKind:
		if n.Tag != "!!bool" {
			return wrongType("true or false", "")
		}
		return protoreflect.ValueOfBool(strings.EqualFold(n.Value, "true")), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if n.Tag != "!!int" || err != nil {
			return wrongType("a whole number, written in decimal", "")
		}
		if fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Sint32Kind || fd.Kind() == protoreflect.Sfixed32Kind {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return wrongType("a whole number between -2147483648 and 2147483647", "")
			}
			return protoreflect.ValueOfInt32(int32(i)), true
		}
		return protoreflect.ValueOfInt64(i), true
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		f, err := strconv.ParseFloat(n.Value, 64)
		if (n.Tag != "!!float" && n.Tag != "!!int") || err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return wrongType("a number", "")
		}
		if fd.Kind() == protoreflect.FloatKind {
			return protoreflect.ValueOfFloat32(float32(f)), true
		}
		return protoreflect.ValueOfFloat64(f), true
	case protoreflect.EnumKind:
		if n.Tag != "!!str" {
			return wrongType("one of "+enumNames(fd.Enum()), "")
		}
		if v := fd.Enum().Values().ByName(protoreflect.Name(n.Value)); v != nil && v.Number() != 0 {
			return protoreflect.ValueOfEnum(v.Number()), true
		}
		return wrongType("one of "+enumNames(fd.Enum()), "")
	}
	return wrongType("a value of a type this loader does not read", "")
}

// enumNames lists an enum's values but its unspecified zero, which is never a valid choice.
func enumNames(e protoreflect.EnumDescriptor) string {
	var names []string
	for i := 0; i < e.Values().Len(); i++ {
		if v := e.Values().Get(i); v.Number() != 0 {
			names = append(names, string(v.Name()))
		}
	}
	return strings.Join(names, ", ")
}

func oneofNames(o protoreflect.OneofDescriptor) string {
	var names []string
	for i := 0; i < o.Fields().Len(); i++ {
		names = append(names, o.Fields().Get(i).JSONName())
	}
	return strings.Join(names, " and ")
}

// messageHint says how to write a message where something else was written.
func messageHint(m protoreflect.MessageDescriptor) string {
	if m.Name() == "StringValueOrRef" {
		return `write {value: "<id>"} or {valueFrom: {kind: ..., name: ...}}`
	}
	return ""
}

// otherCloud says, for a key that is a field of the same message of the other cloud's kind (a
// DigitalOcean cluster's highlyAvailable written in a Civo cluster), whose field it is; "" when
// it is none.
func otherCloud(md protoreflect.MessageDescriptor, key string) string {
	name := string(md.FullName())
	own, ok := cloudlist.OfMessage(md.FullName())
	if !ok {
		return ""
	}
	// A kind's package is clusterplane.provider.<cloud>.<cloud><kind>.v1 and its messages'
	// names begin with the cloud's name (CivoKubernetesClusterSpec): the same message of another
	// cloud's kind is the name with both swapped.
	kindPackage := "." + string(own.ID()) + "." + string(own.ID())
	if !strings.Contains(name, kindPackage) {
		return ""
	}
	for _, d := range cloudlist.All() {
		if d.ID() == own.ID() {
			continue
		}
		other := strings.Replace(strings.Replace(name, kindPackage, "."+string(d.ID())+"."+string(d.ID()), 1),
			"."+own.Env().Name, "."+d.Env().Name, 1)
		found, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(other))
		otherMD, isMessage := found.(protoreflect.MessageDescriptor)
		if err != nil || !isMessage {
			continue
		}
		if otherMD.Fields().ByJSONName(key) == nil && otherMD.Fields().ByName(protoreflect.Name(key)) == nil {
			continue
		}
		return "it is a field of " + apikinds.KindOf(otherMD.ParentFile()) + ", the other cloud's kind"
	}
	return ""
}

// movedTo is the path a key written in the wrong block has in block, its right one ("" for a list's
// items, whose index the key does not say).
func movedTo(block, key string) string {
	switch {
	case strings.Contains(block, "[]"):
		return ""
	case block == "the top of the file":
		return key
	}
	return join(block, key)
}

// explained tells whether p, a broken rule, is at (or below) a field an unknown key was probably
// meant to be, while that field is not written: nodeCount's "must be at least 1" beside
// nodeCont's "did you mean nodeCount?" is the same mistake, and only the unknown key is news.
func (d *decoder) explained(p Problem) bool {
	for _, meant := range d.meant {
		if p.Path != meant && !strings.HasPrefix(p.Path, meant+".") && !strings.HasPrefix(p.Path, meant+"[") {
			continue
		}
		written := false
		for _, at := range d.at {
			if at.written == meant {
				written = true
				break
			}
		}
		if !written {
			return true
		}
	}
	return false
}

// caseOf is the field named key in another case (apiversion for apiVersion), nil when none is.
func caseOf(key string, fields protoreflect.FieldDescriptors) protoreflect.FieldDescriptor {
	for i := 0; i < fields.Len(); i++ {
		if fd := fields.Get(i); strings.EqualFold(fd.JSONName(), key) || strings.EqualFold(string(fd.Name()), key) {
			return fd
		}
	}
	return nil
}

// belongsTo names the block of the file's message where a field called key is, for a key
// written in a block that has no such field (`size` under spec instead of spec.defaultNodePool);
// "" when no block has one. The block nearest the top is named; a list's items are written
// `list[]`.
func (d *decoder) belongsTo(key, written string) string {
	if d.root == nil {
		return ""
	}
	type block struct {
		md   protoreflect.MessageDescriptor
		path string
	}
	queue := []block{{d.root, ""}}
	seen := map[protoreflect.FullName]bool{}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		if seen[b.md.FullName()] {
			continue
		}
		seen[b.md.FullName()] = true
		fields := b.md.Fields()
		if fd := fields.ByJSONName(key); fd != nil || fields.ByName(protoreflect.Name(key)) != nil {
			switch {
			case b.path == "" && written != "":
				return "the top of the file"
			case b.path != "" && b.path != written:
				return b.path
			}
		}
		for i := 0; i < fields.Len(); i++ {
			fd := fields.Get(i)
			if fd.Message() == nil || fd.IsMap() || fd.Message().FullName().Parent() == "google.protobuf" {
				continue
			}
			path := join(b.path, fd.JSONName())
			if fd.IsList() {
				path += "[]"
			}
			queue = append(queue, block{fd.Message(), path})
		}
	}
	return ""
}

// nameHint says where a `name:` written outside metadata goes. metadata.name names the manifest,
// its stack and its Pulumi resources, but not what the cloud calls the cluster or pool: that is
// the spec's own name field (clusterName, nodePoolName), which the modules send to the cloud. A
// `name` is most often meant as that cloud name, so the hint names both. md is the block the
// name was written in, written its path, metadata where metadata is.
func (d *decoder) nameHint(md protoreflect.MessageDescriptor, written, metadata string) string {
	own := metadata + ".name names the manifest and its stack"
	if cloudName := cloudNameField(md); cloudName != nil {
		return fmt.Sprintf("the %s's name in %s is %s; %s", thing(cloudName), cloudOf(md), join(written, cloudName.JSONName()), own)
	}
	at := "name belongs to " + metadata + ".name, which names the manifest and its stack"
	spec := strings.TrimSuffix(metadata, "metadata") + "spec"
	if written != "" && join(written, "metadata") != metadata {
		if strings.HasSuffix(string(md.Name()), "NodePool") {
			// A pool that takes no name (a Civo cluster's default pool): the cloud names it.
			return at + "; " + cloudOf(md) + " names this pool itself"
		}
		return at
	}
	if specMD := messageAt(d.root, spec); specMD != nil {
		if cloudName := cloudNameField(specMD); cloudName != nil {
			// At the top of the file: metadata.name is most likely meant, and the cloud name is
			// the spec's.
			return fmt.Sprintf("%s; the %s's name in %s is %s", at, thing(cloudName), cloudOf(specMD), join(spec, cloudName.JSONName()))
		}
	}
	return at
}

// thing is what a cloud name field names: "cluster" or "pool".
func thing(cloudName protoreflect.FieldDescriptor) string {
	if strings.Contains(string(cloudName.Name()), "pool") {
		return "pool"
	}
	return "cluster"
}

// cloudNameField is md's field that names the cluster or pool in the cloud (clusterName,
// nodePoolName: a spec's or a default pool's), nil when md has none.
func cloudNameField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	for _, name := range []string{kindfield.SpecClusterName, kindfield.SpecNodePoolName} {
		if fd := md.Fields().ByJSONName(name); fd != nil && fd.Kind() == protoreflect.StringKind {
			return fd
		}
	}
	return nil
}

// messageAt is the message at a path of JSON names below root ("target.spec"), nil when a step
// is not a message field.
func messageAt(root protoreflect.MessageDescriptor, path string) protoreflect.MessageDescriptor {
	md := root
	for _, name := range strings.Split(path, ".") {
		fd := md.Fields().ByJSONName(name)
		if fd == nil || fd.Message() == nil {
			return nil
		}
		md = fd.Message()
	}
	return md
}

// cloudOf names the cloud of a kind's message by its package (its driver's name), "the cloud"
// when no driver's package holds it.
func cloudOf(md protoreflect.MessageDescriptor) string {
	if d, ok := cloudlist.OfMessage(md.FullName()); ok {
		return d.Env().Name
	}
	return "the cloud"
}

// nearest suggests the field name closest to an unknown key, and tells whether one is near.
func nearest(key string, fields protoreflect.FieldDescriptors) (string, bool) {
	best, bestDistance := "", len(key)/2+2
	var names []string
	for i := 0; i < fields.Len(); i++ {
		name := fields.Get(i).JSONName()
		names = append(names, name)
		if dist := apikinds.Distance(strings.ToLower(key), strings.ToLower(name)); dist < bestDistance {
			best, bestDistance = name, dist
		}
	}
	if best != "" {
		return "did you mean " + best + "?", true
	}
	sort.Strings(names)
	return "the fields here are " + strings.Join(names, ", "), false
}
