// Package pulumischema writes the Pulumi package schema of the clusterplane component provider
// from the API's descriptors and comments, so the components that TypeScript, Python and YAML
// programs see never drift from the .proto files. Each component's inputs are its kind's spec
// fields plus metadata and providerConfig, named as in manifests (camelCase); its outputs are its
// stack-outputs message's fields, also in camelCase.
package pulumischema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/release"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Component is one component the provider serves.
type Component struct {
	// Token is its type, e.g. "clusterplane:digitalocean:KubernetesCluster".
	Token string
	// StackInput is its kind's stack-input message: the spec, metadata and provider config.
	StackInput protoreflect.MessageDescriptor
	// Outputs is its kind's stack-outputs message.
	Outputs protoreflect.MessageDescriptor
	// Customs are the custom resources the kind registers through the plugin (its cloud's
	// driver describes each, cloudfacts.PluginResource), whose properties are fields of its spec.
	Customs []string
}

// ComponentOf is the component of a kind's stack input, registering customs.
func ComponentOf(stackInput protoreflect.MessageDescriptor, customs ...string) Component {
	manifest := stackInput.Fields().ByJSONName(kindfield.StackInputTarget).Message()
	return Component{
		Token:      Token(manifest),
		StackInput: stackInput,
		Outputs:    manifest.Fields().ByJSONName(kindfield.TargetStatus).Message().Fields().ByJSONName(kindfield.StatusOutputs).Message(),
		Customs:    customs,
	}
}

// Token is the component type of a kind's manifest message (plugin.ComponentType).
func Token(manifest protoreflect.MessageDescriptor) string {
	return plugin.ComponentType(string(manifest.Name()))
}

// Inputs that are not spec fields, named as a stack input names them.
const (
	MetadataInput       = kindfield.TargetMetadata
	ProviderConfigInput = kindfield.StackInputProviderConfig
)

// Package is a Pulumi package schema, with the parts this package writes.
type Package struct {
	Name string `json:"name"`
	// Version is a release's (pkg/release, pkg/plugin), none for a build from a checkout; PluginDownloadURL is
	// where the engine downloads the plugin from.
	Version           string               `json:"version,omitempty"`
	PluginDownloadURL string               `json:"pluginDownloadURL,omitempty"`
	DisplayName       string               `json:"displayName"`
	Description       string               `json:"description"`
	Keywords          []string             `json:"keywords"`
	License           string               `json:"license"`
	Repository        string               `json:"repository"`
	Publisher         string               `json:"publisher"`
	Language          map[string]any       `json:"language"`
	Config            *Config              `json:"config,omitempty"`
	Provider          *Resource            `json:"provider,omitempty"`
	Resources         map[string]*Resource `json:"resources"`
	Types             map[string]*Type     `json:"types"`
}

// Config is the provider's configuration: the settings of its custom resources.
type Config struct {
	Variables map[string]*Property `json:"variables"`
}

// Resource is a component or custom resource, or the provider.
type Resource struct {
	IsComponent     bool                 `json:"isComponent"`
	Description     string               `json:"description"`
	InputProperties map[string]*Property `json:"inputProperties"`
	RequiredInputs  []string             `json:"requiredInputs,omitempty"`
	Properties      map[string]*Property `json:"properties"`
	Required        []string             `json:"required,omitempty"`
}

// Type is an object type (a message) or an enum.
type Type struct {
	Type        string               `json:"type"`
	Description string               `json:"description,omitempty"`
	Properties  map[string]*Property `json:"properties,omitempty"`
	Required    []string             `json:"required,omitempty"`
	Enum        []EnumValue          `json:"enum,omitempty"`
}

// EnumValue is one value of an enum type.
type EnumValue struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Value       string `json:"value"`
}

// Property is an input or output property, an object property, an array's items or a map's
// values.
type Property struct {
	Type                 string    `json:"type,omitempty"`
	Ref                  string    `json:"$ref,omitempty"`
	Items                *Property `json:"items,omitempty"`
	AdditionalProperties *Property `json:"additionalProperties,omitempty"`
	Description          string    `json:"description,omitempty"`
	Secret               bool      `json:"secret,omitempty"`
}

// Generate returns the package schema of components, indented and ending in a newline.
func Generate(components []Component) ([]byte, error) {
	if err := apidoc.Err(); err != nil {
		return nil, err
	}
	g := &generator{types: map[string]*Type{}, owners: map[string]protoreflect.FullName{}}
	pkg := &Package{
		Name:        plugin.Package,
		DisplayName: "Clusterplane",
		Description: "Kubernetes clusters and node pools on " + cloudNames() + ", checked before any cloud call.",
		Keywords:    slices.Concat([]string{"pulumi", "kubernetes"}, cloudIDs(), []string{"category/cloud", "kind/component"}),
		License:     "Apache-2.0",
		Repository:  "https://github.com/clusterplane/clusterplane",
		Publisher:   "Clusterplane",
		Language: map[string]any{
			"go": map[string]any{
				"importBasePath":                 "github.com/clusterplane/clusterplane/sdk/go/clusterplane",
				"generateResourceContainerTypes": true,
				"respectSchemaVersion":           true,
			},
			"nodejs": map[string]any{
				"packageName":          "@clusterplane/clusterplane",
				"dependencies":         map[string]string{"@pulumi/pulumi": "^3.0.0"},
				"respectSchemaVersion": true,
			},
			"python": map[string]any{
				"packageName":          "pulumi_clusterplane",
				"requires":             map[string]string{"pulumi": ">=3.0.0,<4.0.0"},
				"respectSchemaVersion": true,
			},
		},
		Resources:         map[string]*Resource{},
		Types:             g.types,
		PluginDownloadURL: plugin.DownloadURL(),
	}
	if v := release.Version(); v != "0.0.0" {
		pkg.Version = v
	}
	for _, c := range components {
		r, err := g.component(c)
		if err != nil {
			return nil, errors.Wrap(err, c.Token)
		}
		pkg.Resources[c.Token] = r
	}
	for _, c := range components {
		for _, token := range c.Customs {
			if err := g.custom(pkg, token, c.StackInput); err != nil {
				return nil, errors.Wrap(err, token)
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(pkg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cloudNames are the clouds' names as their drivers say them, in the drivers' order: "A and B",
// "A, B and C".
func cloudNames() string {
	var names []string
	for _, d := range cloudlist.All() {
		names = append(names, d.Env().Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// cloudIDs are the clouds' IDs, the package's keywords, in the drivers' order.
func cloudIDs() []string {
	var ids []string
	for _, id := range cloudlist.IDs() {
		ids = append(ids, string(id))
	}
	return ids
}

type generator struct {
	types map[string]*Type
	// owners tells which message or enum a type token stands for, so that two with the same
	// name in different proto packages are caught rather than merged.
	owners map[string]protoreflect.FullName
}

func (g *generator) component(c Component) (*Resource, error) {
	manifest := c.StackInput.Fields().ByJSONName(kindfield.StackInputTarget).Message()
	spec := manifest.Fields().ByJSONName(kindfield.TargetSpec).Message()
	r := &Resource{
		IsComponent:     true,
		Description:     describe(apidoc.Comment(spec.FullName()), messageRules(spec)),
		InputProperties: map[string]*Property{},
		Properties:      map[string]*Property{},
	}
	fields := spec.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		p, err := g.field(fd)
		if err != nil {
			return nil, err
		}
		r.InputProperties[fd.JSONName()] = p
		if rules.Field(fd).GetRequired() {
			r.RequiredInputs = append(r.RequiredInputs, fd.JSONName())
		}
	}
	metadata, err := g.ref(manifest.Fields().ByJSONName(kindfield.TargetMetadata).Message())
	if err != nil {
		return nil, err
	}
	metadata.Description = "Name and context of the resources: their tags and labels derive from it. " +
		"By default only the name, which is the component's own name."
	r.InputProperties[MetadataInput] = metadata
	providerConfig, err := g.ref(c.StackInput.Fields().ByJSONName(kindfield.StackInputProviderConfig).Message())
	if err != nil {
		return nil, err
	}
	providerConfig.Description = "Settings of the provider the component creates when none is passed in `providers`; " +
		"absent or empty fields fall back to the environment."
	r.InputProperties[ProviderConfigInput] = providerConfig

	outputs := c.Outputs.Fields()
	for i := range outputs.Len() {
		fd := outputs.Get(i)
		p, err := g.field(fd)
		if err != nil {
			return nil, err
		}
		r.Properties[fd.JSONName()] = p
		r.Required = append(r.Required, fd.JSONName())
	}
	sort.Strings(r.RequiredInputs)
	sort.Strings(r.Required)
	return r, nil
}

// field is the property of fd: its type, its comment with its rules in words, and whether it
// is secret (debug_redact).
func (g *generator) field(fd protoreflect.FieldDescriptor) (*Property, error) {
	var p *Property
	var err error
	switch {
	case fd.IsMap():
		var values *Property
		if values, err = g.value(fd.MapValue()); err != nil {
			return nil, err
		}
		p = &Property{Type: "object", AdditionalProperties: values}
	case fd.IsList():
		var items *Property
		if items, err = g.value(fd); err != nil {
			return nil, err
		}
		p = &Property{Type: "array", Items: items}
	default:
		if p, err = g.value(fd); err != nil {
			return nil, err
		}
	}
	p.Description = describe(apidoc.Comment(fd.FullName()), rules.Words(fd))
	p.Secret = rules.Secret(fd)
	return p, nil
}

// value is the type of one value of fd's kind.
func (g *generator) value(fd protoreflect.FieldDescriptor) (*Property, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return &Property{Type: "string"}, nil
	case protoreflect.BoolKind:
		return &Property{Type: "boolean"}, nil
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return &Property{Type: "integer"}, nil
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		return &Property{Type: "number"}, nil
	case protoreflect.EnumKind:
		return g.enum(fd.Enum())
	case protoreflect.MessageKind:
		return g.ref(fd.Message())
	}
	return nil, errors.Errorf("field %s: kind %s has no Pulumi schema type", fd.FullName(), fd.Kind())
}

// ref returns a reference to md's object type, adding the type first.
func (g *generator) ref(md protoreflect.MessageDescriptor) (*Property, error) {
	token, err := g.claim(md)
	if err != nil {
		return nil, err
	}
	if _, ok := g.types[token]; !ok {
		t := &Type{
			Type:        "object",
			Description: describe(apidoc.Comment(md.FullName()), messageRules(md)),
			Properties:  map[string]*Property{},
		}
		g.types[token] = t // before the fields: a message may contain itself
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			p, err := g.field(fd)
			if err != nil {
				return nil, err
			}
			t.Properties[fd.JSONName()] = p
			if rules.Field(fd).GetRequired() {
				t.Required = append(t.Required, fd.JSONName())
			}
		}
		sort.Strings(t.Required)
	}
	return &Property{Ref: "#/types/" + token}, nil
}

// enum returns a reference to ed's enum type, adding it first. Its values are the names a
// manifest writes; the zero value stands for "not set" and is not one of them.
func (g *generator) enum(ed protoreflect.EnumDescriptor) (*Property, error) {
	token, err := g.claim(ed)
	if err != nil {
		return nil, err
	}
	if _, ok := g.types[token]; !ok {
		t := &Type{Type: "string", Description: unwrap(apidoc.Comment(ed.FullName()))}
		for _, v := range rules.EnumValues(ed) {
			t.Enum = append(t.Enum, EnumValue{
				Name:        string(v.Name()),
				Description: unwrap(apidoc.Comment(v.FullName())),
				Value:       string(v.Name()),
			})
		}
		g.types[token] = t
	}
	return &Property{Ref: "#/types/" + token}, nil
}

// claim returns the type token of d, `clusterplane:<module>:<Name>`, the module being the proto
// package's cloud ("civo", "digitalocean") or "shared".
func (g *generator) claim(d protoreflect.Descriptor) (string, error) {
	token := plugin.Package + ":" + Module(d.ParentFile().Package()) + ":" + string(d.Name())
	if owner, ok := g.owners[token]; ok && owner != d.FullName() {
		return "", errors.Errorf("%s and %s would both be type %s", owner, d.FullName(), token)
	}
	g.owners[token] = d.FullName()
	return token, nil
}

// Module is the schema module of a proto package: clusterplane.shared.v1 is "shared",
// clusterplane.provider.<cloud>[.<kind>].v1 is "<cloud>".
func Module(pkg protoreflect.FullName) string {
	parts := strings.Split(string(pkg), ".")
	if len(parts) >= 3 && parts[1] == "provider" {
		return parts[2]
	}
	if len(parts) >= 2 {
		return parts[1]
	}
	return string(pkg)
}

// messageRules are md's CEL rules that no field's description states: by the API's convention a
// rule whose id starts with a field's name is that field's (rules.CrossField).
func messageRules(md protoreflect.MessageDescriptor) []string {
	var out []string
	for _, r := range rules.Message(md) {
		if name, _, ok := strings.Cut(r.GetId(), "."); ok && md.Fields().ByName(protoreflect.Name(name)) != nil {
			continue
		}
		out = append(out, r.GetMessage())
	}
	return out
}

// describe is a comment reflowed to one paragraph, then the rules in words, which the engine
// does not check but the component does before it creates anything.
func describe(comment string, words []string) string {
	comment = unwrap(comment)
	if len(words) == 0 {
		return comment
	}
	lines := make([]string, len(words))
	for i, w := range words {
		lines[i] = "- " + w
	}
	return strings.TrimSpace(fmt.Sprintf("%s\n\nRules:\n%s", comment, strings.Join(lines, "\n")))
}

func unwrap(comment string) string {
	return strings.Join(strings.Fields(comment), " ")
}

// pluginResource is the custom resource token as the driver of the cloud whose kind registers it
// describes it.
func pluginResource(token string) (cloudfacts.PluginResource, bool) {
	for _, d := range cloudlist.All() {
		for _, r := range d.PluginResources() {
			if r.Token == token {
				return r, true
			}
		}
	}
	return cloudfacts.PluginResource{}, false
}

// custom adds a custom resource of the plugin's (one its cloud's driver describes, such as Civo's
// node pool), and the provider configuration it reads, to pkg: its properties are fields of the
// spec and the stack outputs of the kind whose module registers it.
func (g *generator) custom(pkg *Package, token string, stackInput protoreflect.MessageDescriptor) error {
	res, ok := pluginResource(token)
	if !ok {
		return errors.New("the plugin serves no such custom resource")
	}
	manifest := stackInput.Fields().ByJSONName(kindfield.StackInputTarget).Message()
	spec := manifest.Fields().ByJSONName(kindfield.TargetSpec).Message()
	outputs := manifest.Fields().ByJSONName(kindfield.TargetStatus).Message().Fields().ByJSONName(kindfield.StatusOutputs).Message()
	r := &Resource{
		Description:     res.Description,
		InputProperties: map[string]*Property{},
		Properties:      map[string]*Property{},
	}
	for name, field := range res.Inputs {
		fd := spec.Fields().ByJSONName(field)
		if fd == nil {
			return errors.Errorf("%s has no field %s", spec.Name(), field)
		}
		var p *Property
		var err error
		if fd.Kind() == protoreflect.MessageKind && !fd.IsMap() && !fd.IsList() || fd.Kind() == protoreflect.EnumKind {
			// The cluster's id and the region are plain strings here: references are resolved and
			// enums named before the component registers the pool.
			p = &Property{Type: "string", Description: describe(apidoc.Comment(fd.FullName()), nil)}
		} else if p, err = g.field(fd); err != nil {
			return err
		}
		r.InputProperties[name] = p
		out := *p
		r.Properties[name] = &out
		r.Required = append(r.Required, name)
	}
	r.RequiredInputs = res.RequiredInputs
	for name, field := range res.Outputs {
		fd := outputs.Fields().ByJSONName(field)
		if fd == nil {
			return errors.Errorf("%s has no field %s", outputs.Name(), field)
		}
		p, err := g.field(fd)
		if err != nil {
			return err
		}
		r.Properties[name] = p
		r.Required = append(r.Required, name)
	}
	sort.Strings(r.Required)
	pkg.Resources[token] = r
	addSettings(pkg, res)
	return nil
}

// addSettings makes the settings res reads the provider's configuration.
func addSettings(pkg *Package, res cloudfacts.PluginResource) {
	settings := map[string]*Property{}
	for _, s := range res.Settings {
		settings[s.Name] = &Property{Type: "string", Secret: s.Secret, Description: s.Description}
	}
	pkg.Config = &Config{Variables: settings}
	pkg.Provider = &Resource{
		Description:     "The clusterplane provider: components need no settings; " + res.SettingsUse,
		InputProperties: settings,
		Properties:      settings,
	}
}

// Stamp sets a schema's version and pluginDownloadURL to this build's (pkg/release, pkg/plugin), so that the
// plugin a release built serves the release's schema; a build from a checkout leaves it as it is.
func Stamp(schema []byte) ([]byte, error) {
	v, url := release.Version(), plugin.DownloadURL()
	if v == "0.0.0" && url == plugin.DefaultDownloadURL {
		return schema, nil // the schema make protos wrote says the same
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(schema, &fields); err != nil {
		return nil, err
	}
	for key, value := range map[string]string{"version": v, "pluginDownloadURL": url} {
		if value == "" || value == "0.0.0" {
			continue
		}
		data, err := json.Marshal(value)
		if err != nil {
			return nil, err
		}
		fields[key] = data
	}
	return json.Marshal(fields)
}
