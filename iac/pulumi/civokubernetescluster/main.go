// Command civokubernetescluster is the Pulumi program of a CivoKubernetesCluster, with the offline commands
// validate, plan and diff.
package main

import (
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	"github.com/clusterplane/clusterplane/pkg/cli"
)

func main() {
	cli.Main(entry.Program.Name, entry.Program, entry.Program.Stack)
}
