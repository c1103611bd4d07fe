// Command digitaloceankubernetescluster is the Pulumi program of a DigitalOceanKubernetesCluster,
// with offline `validate` and `plan` commands.
package main

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/program"
)

func main() {
	program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
		Name: "digitaloceankubernetescluster",
		NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
			return &v1.DigitalOceanKubernetesClusterStackInput{}
		},
		Resources: module.Resources,
	}.Main()
}
