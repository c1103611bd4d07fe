package component

import (
	"reflect"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Kind is what a kind's constructor holds of its own; New runs the steps every kind's constructor
// takes around it, in the same order for all four, so a kind's module writes only its resources.
// P is the cloud's provider type, C its provider config, S the kind's spec and R its component.
type Kind[P pulumi.ProviderResource, C proto.Message, S proto.Message, R pulumi.ComponentResource] struct {
	// Name is the manifest kind, e.g. "CivoKubernetesCluster"; errors name it, and the component
	// resource's type token is made from it (plugin.ComponentType).
	Name string
	// Check, when set, refuses a spec after validation and before anything is registered: a
	// refusal the cloud would give only after creating something.
	Check func(ctx *pulumi.Context, s *Settings[P, C], spec S) error
	// Provider creates the provider the children use when the caller gave none; child are the
	// options every child of the component is created with.
	Provider func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, child []pulumi.ResourceOption) (P, error)
	// Build creates the kind's resources under comp with provider p and sets comp's outputs.
	Build func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, comp R, child []pulumi.ResourceOption, p P) error
}

// ProviderOfConfig is a Kind's Provider for a cloud whose provider needs only its config: create
// makes it, named as the component, from the settings' provider config, with the children's
// options. S is the kind's spec, which such a provider does not read.
func ProviderOfConfig[S proto.Message, P pulumi.ProviderResource, C proto.Message](
	create func(*pulumi.Context, string, C, ...pulumi.ResourceOption) (P, error),
) func(*pulumi.Context, string, *Settings[P, C], S, []pulumi.ResourceOption) (P, error) {
	return func(ctx *pulumi.Context, name string, s *Settings[P, C], _ S, child []pulumi.ResourceOption) (P, error) {
		return create(ctx, name, s.ProviderConfig, child...)
	}
}

// ProviderInRegion is a Kind's Provider for a cloud whose provider is set to one region: create
// makes it as ProviderOfConfig's does, in the spec's region.
func ProviderInRegion[S interface {
	proto.Message
	GetRegion() string
}, P pulumi.ProviderResource, C proto.Message](
	create func(*pulumi.Context, string, C, string, ...pulumi.ResourceOption) (P, error),
) func(*pulumi.Context, string, *Settings[P, C], S, []pulumi.ResourceOption) (P, error) {
	return func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, child []pulumi.ResourceOption) (P, error) {
		return create(ctx, name, s.ProviderConfig, spec.GetRegion(), child...)
	}
}

// Option configures the New of the kind whose spec is S. The spec type makes it that kind's own
// type (a kind's module declares `type Option = component.Option[...]`), so that an option of one
// kind does not compile for another.
type Option[S proto.Message, P pulumi.ProviderResource, C proto.Message] func(*Settings[P, C])

// Common returns the options every kind's New takes, made as the kind's own option type O:
// WithMetadata, WithProvider, WithProviderConfig and WithResourceOptions, in that order, so a
// kind's module declares all four in one line.
func Common[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message]() (
	func(*sharedv1.CloudResourceMetadata) O, func(P) O, func(C) O, func(...pulumi.ResourceOption) O) {
	return WithMetadata[O], WithProvider[O], WithProviderConfig[O], WithResourceOptions[O]
}

// New validates spec (with the rules and messages of the programs), registers a new component
// named name, finds or creates its provider, lets the kind build its resources and registers the
// component's outputs. A kind's module exports it as its New (`var New = kind.New`).
func (k Kind[P, C, S, R]) New(ctx *pulumi.Context, name string, spec S, opts ...Option[S, P, C]) (R, error) {
	var none R
	// R is a pointer to the kind's component struct; the struct is made here so that the kind
	// does not write a New of its own only to make it.
	comp := reflect.New(reflect.TypeFor[R]().Elem()).Interface().(R)
	s := Apply(name, opts)
	if err := s.Validate(k.Name, name, spec); err != nil {
		return none, err
	}
	if k.Check != nil {
		if err := k.Check(ctx, s, spec); err != nil {
			return none, err
		}
	}
	child, err := s.Register(ctx, plugin.ComponentType(k.Name), name, comp)
	if err != nil {
		return none, err
	}
	p, err := s.ProviderOr(func() (P, error) { return k.Provider(ctx, name, s, spec, child) })
	if err != nil {
		return none, err
	}
	if err := k.Build(ctx, name, s, spec, comp, child, p); err != nil {
		return none, err
	}
	if err := Finish(ctx, comp); err != nil {
		return none, err
	}
	return comp, nil
}

// StackInput is a kind's stack input: its target T (metadata and spec) and the provider config C.
type StackInput[T Target[S], S proto.Message, C proto.Message] interface {
	proto.Message
	GetTarget() T
	GetProviderConfig() C
}

// Target is a stack input's target: the resource's metadata and its spec S.
type Target[S proto.Message] interface {
	GetMetadata() *sharedv1.CloudResourceMetadata
	GetSpec() S
}

// Resources returns the stack programs' entry point of kind k for stack input I: it validates the
// input, deploys its target with k.New and exports the component's outputs as the stack's. The
// programs' loader has checked the input already, with positions; the rules cost well under a
// millisecond, and a Go program that builds its stack input itself is checked too. A kind's
// module exports it as its Resources (`var Resources = component.Resources[*v1.XStackInput](kind)`).
func Resources[I StackInput[T, S, C], T Target[S], P pulumi.ProviderResource, C proto.Message, S proto.Message,
	R pulumi.ComponentResource](k Kind[P, C, S, R]) func(*pulumi.Context, I) error {
	return func(ctx *pulumi.Context, input I) error {
		if err := validation.Validate(input); err != nil {
			return err
		}
		md := input.GetTarget().GetMetadata()
		comp, err := k.New(ctx, md.GetName(), input.GetTarget().GetSpec(), WithMetadata[Option[S, P, C]](md),
			WithProviderConfig[Option[S, P, C]](input.GetProviderConfig()),
			WithStackAliases[Option[S, P, C]](), WithValidated[Option[S, P, C]]())
		if err != nil {
			return err
		}
		outputs, err := StackOutputs(comp, input)
		if err != nil {
			return err
		}
		Export(ctx, outputs)
		return nil
	}
}

// StackOutputs returns comp's outputs (Outputs: its fields tagged `pulumi:"name"`) under the names the
// stack programs export them by. The kind's StackOutputs message, the type of the stack input's
// target.status.outputs, names each output once: a field's JSON name (camel case, clusterId) is
// the component's output, its own name (snake case, cluster_id) the stack's. An output the message
// lacks is an error, so the two cannot drift apart.
func StackOutputs(comp pulumi.ComponentResource, stackInput proto.Message) (pulumi.Map, error) {
	in := stackInput.ProtoReflect().Descriptor()
	names := protofield.DescriptorAt(in, kindfield.StackInputTarget, kindfield.TargetStatus, kindfield.StatusOutputs)
	if names == nil {
		return nil, errors.Errorf("%s has no message field %s.%s.%s: no stack outputs to name", in.FullName(),
			kindfield.StackInputTarget, kindfield.TargetStatus, kindfield.StatusOutputs)
	}
	outputs, err := Outputs(comp)
	if err != nil {
		return nil, err
	}
	out := pulumi.Map{}
	for output, value := range outputs {
		fd := names.Fields().ByJSONName(output)
		if fd == nil {
			return nil, errors.Errorf("output %s is not a field of %s", output, names.FullName())
		}
		out[string(fd.Name())] = value
	}
	return out, nil
}
