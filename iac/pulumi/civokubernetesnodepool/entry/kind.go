// Package entry is the CivoKubernetesNodePool kind's entry in iac/pulumi/registry, the kind as
// clusterplane serves it: its program (the module's Resources with the offline commands), its
// component, its effects table and its look-up of what a create would duplicate. It is named
// entry, not kind, so that it is not confused with pkg/kinds, the type every entry fills.
package entry

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	civopoolresource "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/poolresource"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
)

// Program is the stack program with its offline commands (validate, plan, diff), as its binary
// and the clusterplane command run it.
var Program = componentkind.Program("civokubernetesnodepool", civo.Driver{}, module.Resources, Effects)

// Kind is the kind, whole: the program's, with what is this kind's own.
func Kind() kinds.Kind {
	return componentkind.Kind(Program, module.New, kinds.Kind{Short: "civo-pool", Lookup: lookup, Rotate: rotate, Nodes: stackoutputs.CivoKubernetesNodePoolInstanceNames,
		Customs: []componentprovider.Custom{civopoolresource.Custom()}})
}
