// Package reference resolves StringValueOrRef fields: a literal value, or an output of the stack
// that deploys another manifest, read through a Pulumi stack reference.
package reference

import (
	"encoding/json"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Config keys that steer how a reference finds its stack.
const (
	// OrganizationConfigKey sets the organization of referenced stacks; default DefaultOrganization.
	OrganizationConfigKey = "stackReferenceOrganization"
	// StacksConfigKey maps a referenced manifest name to a full stack name, as a JSON
	// object, e.g. {"prod-fra1": "acme/civokubernetescluster/prod"}; it wins over the convention.
	StacksConfigKey = "stackReferences"
	// DefaultOrganization is the organization of every stack in Pulumi's self-managed backends.
	DefaultOrganization = "organization"
)

const outputsPrefix = "status.outputs."

// StackName is the stack a reference points at: by convention
// `<organization>/<kind in lower case>/<name>` with `-<env>` appended when env is set, the project
// being the program that deploys that kind. StacksConfigKey overrides it per name.
func StackName(ctx *pulumi.Context, ref *sharedv1.ValueFromRef) (string, error) {
	if text := config.Get(ctx, StacksConfigKey); text != "" {
		overrides := map[string]string{}
		if err := json.Unmarshal([]byte(text), &overrides); err != nil {
			return "", errors.Wrapf(err, "config %s must be a JSON object of manifest name to stack name", StacksConfigKey)
		}
		if stack, ok := overrides[ref.GetName()]; ok {
			return stack, nil
		}
	}
	if ref.GetKind() == "" {
		return "", errors.Errorf("valueFrom %q has no kind, which names the referenced stack's project: set kind or map the name in config %s",
			ref.GetName(), StacksConfigKey)
	}
	org := config.Get(ctx, OrganizationConfigKey)
	if org == "" {
		org = DefaultOrganization
	}
	return org + "/" + Key(ref), nil
}

// Key is the referenced stack within its organization: `<kind in lower case>/<name>[-<env>]`,
// the project and the stack.
func Key(ref *sharedv1.ValueFromRef) string {
	return strings.ToLower(ref.GetKind()) + "/" + Stack(ref.GetName(), ref.GetEnv())
}

// Stack is the stack name of a manifest by the convention: <name>-<env>, or <name> without env.
func Stack(name, env string) string {
	if env == "" {
		return name
	}
	return name + "-" + env
}

// OutputName is the stack output a reference reads: field_path `status.outputs.<name>` reads
// `<name>`; an empty field_path reads defaultOutput.
func OutputName(ref *sharedv1.ValueFromRef, defaultOutput string) string {
	if path := ref.GetFieldPath(); path != "" {
		return strings.TrimPrefix(path, outputsPrefix)
	}
	return defaultOutput
}

// Resolve returns the string ref stands for. A literal is returned as is. A reference registers a
// stack reference named `<owner>-<field>` (opts apply to it, e.g. a parent) and reads the output;
// a missing output fails the deployment with an error naming the stack and the output.
func Resolve(ctx *pulumi.Context, owner, field string, ref *sharedv1.StringValueOrRef, defaultOutput string,
	opts ...pulumi.ResourceOption) (pulumi.StringOutput, error) {
	if ref.GetValueFrom() == nil {
		return pulumi.String(ref.GetValue()).ToStringOutput(), nil
	}
	from := ref.GetValueFrom()
	stack, err := StackName(ctx, from)
	if err != nil {
		return pulumi.StringOutput{}, err
	}
	output := OutputName(from, defaultOutput)
	sr, err := pulumi.NewStackReference(ctx, owner+"-"+field, &pulumi.StackReferenceArgs{
		Name: pulumi.String(stack),
	}, opts...)
	if err != nil {
		return pulumi.StringOutput{}, errors.Wrapf(err, "reference stack %q for %s", stack, field)
	}
	return sr.GetOutput(pulumi.String(output)).ApplyT(func(v any) (string, error) {
		s, ok := v.(string)
		if !ok || s == "" {
			return "", errors.Errorf("%s: stack %q has no output %q", field, stack, output)
		}
		return s, nil
	}).(pulumi.StringOutput), nil
}
