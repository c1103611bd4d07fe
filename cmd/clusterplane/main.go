// Command clusterplane is one command for every Clusterplane kind: it validates manifests and
// stack inputs (many files, directories, stdin), plans and diffs them offline, explains their
// fields, prints their JSON Schemas and lists kinds and regions. Each file is dispatched on its
// `kind` to that kind's program, through the same code the program binaries run.
package main

import (
	"os"

	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
)

// programs are the programs clusterplane dispatches to, in the order of the README's table.
var programs = []kind{
	kindOf(civocluster.Program),
	kindOf(civopool.Program),
	kindOf(docluster.Program),
	kindOf(dopool.Program),
}

func main() {
	os.Exit(newApp(programs, os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}
