package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/program"
)

// Program is the stack program with its offline commands (validate, plan), as its binary and
// the clusterplane command run it.
var Program = program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
	Name: "digitaloceankubernetescluster",
	NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
		return &v1.DigitalOceanKubernetesClusterStackInput{}
	},
	Resources: Resources,
}
