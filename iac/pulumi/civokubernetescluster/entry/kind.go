// Package entry is the CivoKubernetesCluster kind's entry in iac/pulumi/registry, the kind as
// clusterplane serves it: its program (the module's Resources with the offline commands), its
// component, its effects table and its look-up of what a create would duplicate. It is named
// entry, not kind, so that it is not confused with pkg/kinds, the type every entry fills.
package entry

import (
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
)

// Program is the stack program with its offline commands (validate, plan, diff), as its binary
// and the clusterplane command run it.
var Program = componentkind.Program("civokubernetescluster", civo.Driver{}, module.Resources, Effects)

// Kind is the kind, whole: the program's, with what is this kind's own.
func Kind() kinds.Kind {
	return componentkind.Kind(Program, module.New, kinds.Kind{Short: "civo-cluster", Lookup: lookup, ImportsWith: importsWith})
}
