package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/program"
)

// Program is the stack program with its offline commands (validate, plan), as its binary and
// the clusterplane command run it.
var Program = program.Program[*v1.CivoKubernetesClusterStackInput]{
	Name:      "civokubernetescluster",
	NewInput:  func() *v1.CivoKubernetesClusterStackInput { return &v1.CivoKubernetesClusterStackInput{} },
	Resources: Resources,
}
