// Package stackref resolves a StringValueOrRef field inside a Pulumi program: a literal value, or
// an output of the stack that deploys another manifest, read through a Pulumi stack reference.
// Which stack and which output a reference names is pkg/manifest/reference's convention; the
// config that overrides it and the stack reference itself are Pulumi's, and live here.
package stackref

import (
	"encoding/json"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
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

// StackName is the stack a reference points at: by convention
// `<organization>/<kind in lower case>/<name>` with `-<env>` appended when env is set, the project
// being the program that deploys that kind (reference.Key). StacksConfigKey overrides it per name.
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
	return org + "/" + reference.Key(ref), nil
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
	output := reference.OutputName(from, defaultOutput)
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
