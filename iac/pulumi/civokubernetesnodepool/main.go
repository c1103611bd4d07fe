// Command civokubernetesnodepool is the Pulumi program of a CivoKubernetesNodePool,
// with offline `validate` and `plan` commands.
package main

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/program"
)

func main() {
	program.Program[*v1.CivoKubernetesNodePoolStackInput]{
		Name:      "civokubernetesnodepool",
		NewInput:  func() *v1.CivoKubernetesNodePoolStackInput { return &v1.CivoKubernetesNodePoolStackInput{} },
		Resources: module.Resources,
	}.Main()
}
