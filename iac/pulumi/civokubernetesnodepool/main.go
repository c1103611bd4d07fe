// Command civokubernetesnodepool is the Pulumi program of a CivoKubernetesNodePool,
// with offline `validate` and `plan` commands.
package main

import "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"

func main() {
	module.Program.Main()
}
