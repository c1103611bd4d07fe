// Command digitaloceankubernetesnodepool is the Pulumi program of a DigitalOceanKubernetesNodePool,
// with offline `validate` and `plan` commands.
package main

import "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"

func main() {
	module.Program.Main()
}
