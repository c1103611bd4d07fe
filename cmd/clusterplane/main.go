// Command clusterplane is one command for every Clusterplane kind: it validates manifests and
// stack inputs (many files, directories, stdin), plans and diffs them offline, explains their
// fields, prints their JSON Schemas, lists kinds and regions, and deploys manifests through the
// deploy package. The offline commands are package cli's, which the program binaries run too;
// this package adds its flags, its rendering and its exit codes, and nothing that deploys.
package main

import (
	"os"
	"path/filepath"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/pulumi/plugin"
)

func main() {
	if filepath.Base(os.Args[0]) == plugin.Name {
		servePlugin(registry.Kinds())
		return
	}
	os.Exit(newApp(registry.Kinds(), os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}
