// Command digitaloceankubernetesnodepool is the Pulumi program of a DigitalOceanKubernetesNodePool,
// with offline `validate` and `plan` commands.
package main

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/program"
)

func main() {
	program.Program[*v1.DigitalOceanKubernetesNodePoolStackInput]{
		Name: "digitaloceankubernetesnodepool",
		NewInput: func() *v1.DigitalOceanKubernetesNodePoolStackInput {
			return &v1.DigitalOceanKubernetesNodePoolStackInput{}
		},
		Resources: module.Resources,
	}.Main()
}
