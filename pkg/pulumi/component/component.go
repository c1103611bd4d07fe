// Package component is what the four kinds' constructors share: their options, the validation of
// a spec whose references may come from options, the options their children are created with, and
// the pool arguments (size, taints) their providers take alike (pool.go).
package component

import (
	"reflect"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackref"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Settings are a constructor's options. P is the cloud's provider type, C its provider config.
type Settings[P pulumi.ProviderResource, C proto.Message] struct {
	// Metadata names and labels the resources; by default just the component's name.
	Metadata *sharedv1.CloudResourceMetadata
	// Provider, when set, manages the children; otherwise a provider is created from
	// ProviderConfig (and the environment) as a child.
	Provider       P
	ProviderConfig C
	// ResourceOptions apply to the component itself, e.g. a parent or protect.
	ResourceOptions []pulumi.ResourceOption
	// Inputs stand in for reference fields of the spec, by JSON field name (the generated
	// <Spec>Field<Field> constant, e.g. "cluster").
	Inputs map[string]pulumi.StringInput
	// StackAliases makes children answer to the URNs they had when the stack programs created
	// them at the stack's root, before components existed.
	StackAliases bool
	// Validated says the spec was validated already (the stack programs validate the whole
	// stack input once), so New does not validate it again.
	Validated bool
	// InPlugin says the component is constructed by the clusterplane plugin, which is then
	// certainly there to manage the resources it serves itself.
	InPlugin bool
}

// Options are each kind's own type, Option[S, P, C] of its spec S (kind.go), so that an option of
// one kind does not compile for another; the constructors below make options of any such type O.

// WithMetadata sets the metadata that names and labels the resources.
func WithMetadata[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](md *sharedv1.CloudResourceMetadata) O {
	return func(s *Settings[P, C]) { s.Metadata = md }
}

// WithProvider makes p manage the children instead of a provider the component creates.
func WithProvider[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](p P) O {
	return func(s *Settings[P, C]) { s.Provider = p }
}

// WithProviderConfig configures the provider the component creates.
func WithProviderConfig[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](cfg C) O {
	return func(s *Settings[P, C]) { s.ProviderConfig = cfg }
}

// WithResourceOptions applies opts to the component resource.
func WithResourceOptions[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](opts ...pulumi.ResourceOption) O {
	return func(s *Settings[P, C]) { s.ResourceOptions = append(s.ResourceOptions, opts...) }
}

// WithInput makes value stand in for the spec's reference field named field.
func WithInput[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](field string, value pulumi.StringInput) O {
	return func(s *Settings[P, C]) { s.Inputs[field] = value }
}

// WithStackAliases is for the stack programs only; see Settings.StackAliases.
func WithStackAliases[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message]() O {
	return func(s *Settings[P, C]) { s.StackAliases = true }
}

// WithValidated is for the stack programs only; see Settings.Validated.
func WithValidated[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message]() O {
	return func(s *Settings[P, C]) { s.Validated = true }
}

// WithinPlugin is for the plugin's Construct only; see Settings.InPlugin.
func WithinPlugin[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message]() O {
	return func(s *Settings[P, C]) { s.InPlugin = true }
}

// Apply returns the settings of a component named name.
func Apply[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message](name string, opts []O) *Settings[P, C] {
	s := &Settings[P, C]{Inputs: map[string]pulumi.StringInput{}}
	for _, opt := range opts {
		opt(s)
	}
	if s.Metadata == nil {
		s.Metadata = &sharedv1.CloudResourceMetadata{Name: name}
	}
	return s
}

// HasProvider tells whether WithProvider gave a provider.
func (s *Settings[P, C]) HasProvider() bool {
	var none P
	return any(s.Provider) != any(none)
}

// InputPlaceholder fills a reference field set by an option, so that the spec's rules for it
// (required, usually) see it set. It is a literal that every id rule accepts (a UUID): the
// rules on literal ids and on references are for what the spec writes, not for outputs known
// only at deployment.
func InputPlaceholder() *sharedv1.StringValueOrRef {
	return sharedv1.StringValue("00000000-0000-4000-8000-000000000000")
}

// Validate checks spec with the same rules as the programs, counting reference fields given by
// options as set.
func (s *Settings[P, C]) Validate(kind, name string, spec proto.Message) error {
	if spec == nil || !spec.ProtoReflect().IsValid() {
		return errors.Errorf("%s %s: spec is required", kind, name)
	}
	if s.Validated {
		return nil
	}
	checked := proto.Clone(spec).ProtoReflect()
	fields := checked.Descriptor().Fields()
	for field := range s.Inputs {
		fd := fields.ByJSONName(field)
		if fd == nil {
			return errors.Errorf("%s has no field %q to set by option", kind, field)
		}
		if !checked.Has(fd) {
			checked.Set(fd, protoreflect.ValueOfMessage(InputPlaceholder().ProtoReflect()))
		}
	}
	if err := validation.Validate(checked.Interface()); err != nil {
		return errors.Wrapf(err, "%s %s", kind, name)
	}
	return nil
}

// HasInput tells whether the reference field named field is set, by the spec or by an option.
func (s *Settings[P, C]) HasInput(field string, ref *sharedv1.StringValueOrRef) bool {
	_, ok := s.Inputs[field]
	return ok || ref != nil
}

// Input returns what the reference field named field stands for: the option's value when one
// was given, else the spec's literal or stack reference (read from defaultOutput unless it names
// another). opts apply to a stack reference it creates.
func (s *Settings[P, C]) Input(ctx *pulumi.Context, owner, field string, ref *sharedv1.StringValueOrRef,
	defaultOutput string, opts ...pulumi.ResourceOption) (pulumi.StringOutput, error) {
	if value, ok := s.Inputs[field]; ok {
		return value.ToStringOutput(), nil
	}
	return stackref.Resolve(ctx, owner, field, ref, defaultOutput, opts...)
}

// Register registers comp as a component of type typ named name and returns the options every
// child of it is created with.
func (s *Settings[P, C]) Register(ctx *pulumi.Context, typ, name string, comp pulumi.ComponentResource) ([]pulumi.ResourceOption, error) {
	if err := ctx.RegisterComponentResource(typ, name, comp, s.ResourceOptions...); err != nil {
		return nil, errors.Wrap(err, "register component")
	}
	opts := []pulumi.ResourceOption{pulumi.Parent(comp)}
	if s.StackAliases {
		opts = append(opts, pulumi.Aliases([]pulumi.Alias{{NoParent: pulumi.Bool(true)}}))
	}
	return opts, nil
}

// ProviderOr returns the provider the caller gave, or else the one create makes. The caller gives
// one with WithProvider, or as a provider of the component's own resource options
// (pulumi.Providers from Go; `providers` from TypeScript, Python or YAML, which reach Construct
// as such an option): a provider of P's package there would otherwise be shadowed by the one
// created.
func (s *Settings[P, C]) ProviderOr(create func() (P, error)) (P, error) {
	if s.HasProvider() {
		return s.Provider, nil
	}
	ro, err := pulumi.NewResourceOptions(s.ResourceOptions...)
	if err != nil {
		var none P
		return none, errors.Wrap(err, "read the component's resource options")
	}
	for _, p := range append([]pulumi.ProviderResource{ro.Provider}, ro.Providers...) {
		if given, ok := p.(P); ok {
			return given, nil
		}
	}
	return create()
}

// Finish registers a component's outputs, which ends its registration. They are its fields
// tagged `pulumi:"name"`, under those names (Outputs): the same names the Pulumi schema gives
// them, so a TypeScript program and a Go program read the same outputs.
func Finish(ctx *pulumi.Context, comp pulumi.ComponentResource) error {
	outputs, err := Outputs(comp)
	if err != nil {
		return err
	}
	return errors.Wrap(ctx.RegisterResourceOutputs(comp, outputs), "register outputs")
}

// Outputs returns comp's outputs: its fields tagged `pulumi:"name"`, by name, those of the
// structs it embeds included. A kind's component embeds its generated outputs
// (apis/clusterplane/stackoutputs), and Pulumi's own readers of tags (provider.NewConstructResult)
// look only at the struct's own fields, so the plugin's Construct answers with these instead.
// Two fields tagged with one name are an error: one of them would be lost.
func Outputs(comp pulumi.ComponentResource) (pulumi.Map, error) {
	out := pulumi.Map{}
	if err := addTagged(out, reflect.ValueOf(comp).Elem()); err != nil {
		return nil, errors.Wrapf(err, "the outputs of %T", comp)
	}
	return out, nil
}

// addTagged adds v's exported fields tagged `pulumi:"name"` to out, and those of the structs v
// embeds. pulumi.ResourceState, embedded by every component, has no exported field.
func addTagged(out pulumi.Map, v reflect.Value) error {
	for i := range v.NumField() {
		field := v.Type().Field(i)
		if !field.IsExported() {
			continue
		}
		name, ok := field.Tag.Lookup("pulumi")
		if !ok {
			if field.Anonymous && field.Type.Kind() == reflect.Struct {
				if err := addTagged(out, v.Field(i)); err != nil {
					return err
				}
			}
			continue
		}
		value, ok := v.Field(i).Interface().(pulumi.Input)
		if !ok {
			continue
		}
		if _, twice := out[name]; twice {
			return errors.Errorf("two fields are tagged as output %s", name)
		}
		out[name] = value
	}
	return nil
}

// Export exports outputs as the stack's outputs.
func Export(ctx *pulumi.Context, outputs pulumi.Map) {
	for name, value := range outputs {
		ctx.Export(name, value)
	}
}
