package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/program"
)

// Program is the stack program with its offline commands (validate, plan), as its binary and
// the clusterplane command run it.
var Program = program.Program[*v1.DigitalOceanKubernetesNodePoolStackInput]{
	Name: "digitaloceankubernetesnodepool",
	NewInput: func() *v1.DigitalOceanKubernetesNodePoolStackInput {
		return &v1.DigitalOceanKubernetesNodePoolStackInput{}
	},
	Resources: Resources,
}
