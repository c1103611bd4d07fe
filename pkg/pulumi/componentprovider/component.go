package componentprovider

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Component is one component the provider constructs, with the same constructor as Go programs use.
type Component struct {
	// Token is the component's type, e.g. "clusterplane:digitalocean:KubernetesCluster".
	Token string
	// NewStackInput returns an empty stack input of the kind, which ReadInputs fills.
	NewStackInput func() proto.Message
	// Construct calls the kind's module.New with a valid stack input's spec, metadata and
	// provider config, the ids given as outputs (by JSON field name) and the component's options.
	Construct func(ctx *pulumi.Context, name string, stackInput proto.Message, ids map[string]pulumi.StringInput,
		opts pulumi.ResourceOption) (pulumi.ComponentResource, error)
}

// ComponentOf adapts a module's constructor (the registry package lists the four): O is its option
// type, P and C its provider and provider config, S its spec and R its component.
func ComponentOf[O ~func(*component.Settings[P, C]), P pulumi.ProviderResource, C proto.Message, S proto.Message, I proto.Message, R pulumi.ComponentResource](
	token string, newInput func() I, newFn func(*pulumi.Context, string, S, ...O) (R, error)) Component {
	return Component{
		Token:         token,
		NewStackInput: func() proto.Message { return newInput() },
		Construct: func(ctx *pulumi.Context, name string, stackInput proto.Message, ids map[string]pulumi.StringInput,
			opts pulumi.ResourceOption) (pulumi.ComponentResource, error) {
			in := stackInput.ProtoReflect()
			target := get(in, kindfield.StackInputTarget)
			options := []O{
				component.WithMetadata[O](get(target, kindfield.TargetMetadata).Interface().(*sharedv1.CloudResourceMetadata)),
				component.WithProviderConfig[O](get(in, kindfield.StackInputProviderConfig).Interface().(C)),
				component.WithResourceOptions[O](opts),
				component.WithValidated[O](),
				component.WithinPlugin[O](),
			}
			for field, id := range ids {
				options = append(options, component.WithInput[O](field, id))
			}
			return newFn(ctx, name, get(target, kindfield.TargetSpec).Interface().(S), options...)
		},
	}
}

// get returns m's message field of the JSON name, empty when unset.
func get(m protoreflect.Message, jsonName string) protoreflect.Message {
	return m.Get(m.Descriptor().Fields().ByJSONName(jsonName)).Message()
}
