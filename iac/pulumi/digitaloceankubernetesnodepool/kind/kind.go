// Package kind is the DigitalOceanKubernetesNodePool kind as clusterplane serves it: its program (the module's
// Resources with the offline commands), its component, its effects table and its look-up of
// what a create would duplicate. iac/pulumi/registry lists it with the others.
package kind

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

// Program is the stack program with its offline commands (validate, plan, diff), as its binary
// and the clusterplane command run it.
var Program = program.Program[*v1.DigitalOceanKubernetesNodePoolStackInput]{
	Name: "digitaloceankubernetesnodepool",
	NewInput: func() *v1.DigitalOceanKubernetesNodePoolStackInput {
		return &v1.DigitalOceanKubernetesNodePoolStackInput{}
	},
	Resources: module.Resources,
	Effects:   Effects,
}

// Kind is the kind, whole.
func Kind() kinds.Kind {
	k := kinds.Of(Program)
	k.Short = "do-pool"
	k.Component = componentprovider.ComponentOf(module.TypeToken, Program.NewInput, module.New)
	k.Lookup = lookup
	k.Rotate = rotate
	k.Nodes = module.OutputNodeIDs
	k.Cost = cost
	return k
}
