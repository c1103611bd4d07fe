package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/program"
)

// Program is the stack program with its offline commands (validate, plan), as its binary and
// the clusterplane command run it.
var Program = program.Program[*v1.CivoKubernetesNodePoolStackInput]{
	Name:      "civokubernetesnodepool",
	NewInput:  func() *v1.CivoKubernetesNodePoolStackInput { return &v1.CivoKubernetesNodePoolStackInput{} },
	Resources: Resources,
}
