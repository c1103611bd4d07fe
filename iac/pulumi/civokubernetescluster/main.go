// Command civokubernetescluster is the Pulumi program of a CivoKubernetesCluster,
// with offline `validate` and `plan` commands.
package main

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/program"
)

func main() {
	program.Program[*v1.CivoKubernetesClusterStackInput]{
		Name:      "civokubernetescluster",
		NewInput:  func() *v1.CivoKubernetesClusterStackInput { return &v1.CivoKubernetesClusterStackInput{} },
		Resources: module.Resources,
	}.Main()
}
