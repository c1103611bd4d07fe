// Command digitaloceankubernetescluster is the Pulumi program of a DigitalOceanKubernetesCluster,
// with offline `validate` and `plan` commands.
package main

import "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"

func main() {
	module.Program.Main()
}
