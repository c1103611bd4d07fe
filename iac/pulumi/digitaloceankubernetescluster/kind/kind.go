// Package kind is the DigitalOceanKubernetesCluster kind as clusterplane serves it: its program (the module's
// Resources with the offline commands), its component, its effects table and its look-up of
// what a create would duplicate. iac/pulumi/registry lists it with the others.
package kind

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

// Program is the stack program with its offline commands (validate, plan, diff), as its binary
// and the clusterplane command run it.
var Program = program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
	Name: "digitaloceankubernetescluster",
	NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
		return &v1.DigitalOceanKubernetesClusterStackInput{}
	},
	Resources: module.Resources,
	Effects:   Effects,
}

// Kind is the kind, whole.
func Kind() kinds.Kind {
	k := kinds.Of(Program)
	k.Short = "do-cluster"
	k.Component = componentprovider.ComponentOf(module.TypeToken, Program.NewInput, module.New)
	k.Lookup = lookup
	k.ReadyImport = readyImport
	k.Rotate = rotate
	k.Cost = cost
	return k
}
