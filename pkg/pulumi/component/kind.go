package component

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Kind is what a kind's constructor holds of its own; New runs the steps every kind's constructor
// takes around it, in the same order for all four, so a kind's module writes only its resources.
// P is the cloud's provider type, C its provider config, S the kind's spec and R its component.
type Kind[P pulumi.ProviderResource, C proto.Message, S proto.Message, R pulumi.ComponentResource] struct {
	// Name is the manifest kind, e.g. "CivoKubernetesCluster"; errors name it.
	Name string
	// Type is the component resource's type token.
	Type string
	// Check, when set, refuses a spec after validation and before anything is registered: a
	// refusal the cloud would give only after creating something.
	Check func(ctx *pulumi.Context, s *Settings[P, C], spec S) error
	// Provider creates the provider the children use when the caller gave none; child are the
	// options every child of the component is created with.
	Provider func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, child []pulumi.ResourceOption) (P, error)
	// Build creates the kind's resources under comp with provider p and sets comp's outputs.
	Build func(ctx *pulumi.Context, name string, s *Settings[P, C], spec S, comp R, child []pulumi.ResourceOption, p P) error
}

// New validates spec (with the rules and messages of the programs), registers comp as a component
// named name, finds or creates its provider, lets the kind build its resources and registers
// comp's outputs. The options are the kind's own type O, so another kind's do not compile.
func New[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message, S proto.Message, R pulumi.ComponentResource](
	ctx *pulumi.Context, k Kind[P, C, S, R], name string, spec S, comp R, opts []O) (R, error) {
	var none R
	s := Apply(name, opts)
	if err := s.Validate(k.Name, name, spec); err != nil {
		return none, err
	}
	if k.Check != nil {
		if err := k.Check(ctx, s, spec); err != nil {
			return none, err
		}
	}
	child, err := s.Register(ctx, k.Type, name, comp)
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

// Resources is the stack programs' entry point every kind shares: it validates the stack input,
// deploys its target with newFn (the kind's New) and exports the component's outputs as the
// stack's. The programs' loader has checked the input already, with positions; the rules cost
// well under a millisecond, and a Go program that builds its stack input itself is checked too.
// md, spec and cfg are the input's target metadata, target spec and provider config.
func Resources[O ~func(*Settings[P, C]), P pulumi.ProviderResource, C proto.Message, S proto.Message, R pulumi.ComponentResource](
	ctx *pulumi.Context, input proto.Message, md *sharedv1.CloudResourceMetadata, spec S, cfg C,
	newFn func(*pulumi.Context, string, S, ...O) (R, error)) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	comp, err := newFn(ctx, md.GetName(), spec,
		WithMetadata[O](md), WithProviderConfig[O](cfg), WithStackAliases[O](), WithValidated[O]())
	if err != nil {
		return err
	}
	Export(ctx, StackOutputs(comp))
	return nil
}

// StackOutputs returns comp's fields tagged `stack:"name"` by that name: the outputs the stack
// programs export, named as in the kind's StackOutputs message (snake case), where the tag
// `pulumi:"name"` names the same field for the component's outputs (camel case).
func StackOutputs(comp pulumi.ComponentResource) pulumi.Map {
	return tagged(comp, "stack")
}
