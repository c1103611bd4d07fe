// Package registry lists the four kinds once, above the modules that deploy them: for each, its
// manifest kind, program, component type token, stack input, offline commands, Pulumi program
// and component. The clusterplane command, the pulumi-resource-clusterplane plugin and the
// deploy commands all take their kinds from here, so that pkg/ never imports iac/.
package registry

import (
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"google.golang.org/protobuf/reflect/protoreflect"

	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/civopoolresource"
	"github.com/clusterplane/clusterplane/pkg/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Kind is one kind with its stack-input type erased.
type Kind struct {
	// Name is the manifest kind, e.g. "DigitalOceanKubernetesCluster"; Program the program's
	// folder under iac/pulumi and its binary's name, e.g. "digitaloceankubernetescluster".
	Name, Program string
	// NewStackInput returns an empty stack input of the kind.
	NewStackInput func() proto.Message
	// Offline is what the offline commands (validate, plan, diff) run for the kind.
	Offline cli.Program
	// Resources is the kind's stack program for a stack input: what a stack of the kind deploys
	// (the module's Resources).
	Resources func(ctx *pulumi.Context, stackInput proto.Message) error
	// Component is what the plugin constructs.
	Component componentprovider.Component
}

// StackInput is the descriptor of the kind's stack input.
func (k Kind) StackInput() protoreflect.MessageDescriptor {
	return k.NewStackInput().ProtoReflect().Descriptor()
}

// Target is what deploying a valid stack input of the kind, read from file, takes: its stack is
// named by the convention references read, unless stack names another.
func (k Kind) Target(file string, stackInput proto.Message, stack string) deploy.Target {
	t := deploy.NewTarget(file, k.Name, k.Program, stackInput, k.Resources, stack)
	t.Lookup = lookups[k.Name]
	return t
}

// Kinds returns the four kinds in the order of the README's table.
func Kinds() []Kind {
	return []Kind{
		kindOf(civocluster.Program, componentprovider.ComponentOf(civocluster.TypeToken, civocluster.Program.NewInput, civocluster.New)),
		kindOf(civopool.Program, componentprovider.ComponentOf(civopool.TypeToken, civopool.Program.NewInput, civopool.New)),
		kindOf(docluster.Program, componentprovider.ComponentOf(docluster.TypeToken, docluster.Program.NewInput, docluster.New)),
		kindOf(dopool.Program, componentprovider.ComponentOf(dopool.TypeToken, dopool.Program.NewInput, dopool.New)),
	}
}

// Components returns the plugin's view of the kinds.
func Components() []componentprovider.Component {
	var out []componentprovider.Component
	for _, k := range Kinds() {
		out = append(out, k.Component)
	}
	return out
}

// Customs returns the custom resources the plugin manages itself: the Civo node pool, which the
// CivoKubernetesNodePool module registers.
func Customs() []componentprovider.Custom {
	return []componentprovider.Custom{civopoolresource.Custom()}
}

// ByName returns the kind of a manifest kind name.
func ByName(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

func kindOf[T proto.Message](p program.Program[T], component componentprovider.Component) Kind {
	return Kind{
		Name:          p.Kind(),
		Program:       p.Name,
		NewStackInput: func() proto.Message { return p.NewInput() },
		Offline:       p,
		Resources:     func(ctx *pulumi.Context, in proto.Message) error { return p.Resources(ctx, in.(T)) },
		Component:     component,
	}
}
