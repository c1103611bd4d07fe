// Package registry lists the four kinds once, above the modules that deploy them: for each, its
// manifest kind, program, component type token, stack input, offline commands, Pulumi program
// and component. The clusterplane command, the pulumi-resource-clusterplane plugin and the
// deploy commands all take their kinds from here, so that pkg/ never imports iac/.
package registry

import (
	"io"

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
	// Check, Plan and Diff are the offline commands on files already read (a pipe is read
	// once); Run is the program binary's own command line.
	Check func(file string, data []byte) program.Verdict
	Plan  func(f program.File, format string, stdout, stderr io.Writer) int
	Diff  func(oldFile, newFile program.File, format string, allowReplace bool, stdout, stderr io.Writer) int
	Run   func(args []string, stdout, stderr io.Writer) int
	// Deploy is the kind's stack program body for a valid stack input: what the program deploys.
	Deploy func(ctx *pulumi.Context, stackInput proto.Message) error
	// Component is what the plugin constructs.
	Component componentprovider.Kind
}

// Kinds returns the four kinds in the order of the README's table.
func Kinds() []Kind {
	return []Kind{
		kindOf(civocluster.Program, civocluster.Deploy, componentprovider.KindOf(civocluster.TypeToken, civocluster.Program.NewInput, civocluster.New)),
		kindOf(civopool.Program, civopool.Deploy, componentprovider.KindOf(civopool.TypeToken, civopool.Program.NewInput, civopool.New)),
		kindOf(docluster.Program, docluster.Deploy, componentprovider.KindOf(docluster.TypeToken, docluster.Program.NewInput, docluster.New)),
		kindOf(dopool.Program, dopool.Deploy, componentprovider.KindOf(dopool.TypeToken, dopool.Program.NewInput, dopool.New)),
	}
}

// Components returns the plugin's view of the kinds.
func Components() []componentprovider.Kind {
	var out []componentprovider.Kind
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

func kindOf[T proto.Message](p program.Program[T], deploy func(*pulumi.Context, T) error, component componentprovider.Kind) Kind {
	return Kind{
		Name:          p.Kind(),
		Program:       p.Name,
		NewStackInput: func() proto.Message { return p.NewInput() },
		Check:         p.Check,
		Plan:          p.Plan,
		Diff:          p.Diff,
		Run:           p.Run,
		Deploy:        func(ctx *pulumi.Context, in proto.Message) error { return deploy(ctx, in.(T)) },
		Component:     component,
	}
}
