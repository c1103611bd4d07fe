// Command civokubernetescluster is the Pulumi program of a CivoKubernetesCluster,
// with offline `validate` and `plan` commands.
package main

import "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"

func main() {
	module.Program.Main()
}
