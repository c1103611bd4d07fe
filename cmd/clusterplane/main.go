// Command clusterplane is one command for every Clusterplane kind: it validates manifests and
// stack inputs (many files, directories, stdin), plans and diffs them offline, explains their
// fields, prints their JSON Schemas, lists kinds and regions, and deploys manifests through the
// deploy package. The offline commands are package cli's, which the program binaries run too;
// this package adds its flags, its rendering and its exit codes, and nothing that deploys.
package main

import (
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/typeahead"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
)

func init() { typeahead.RestoreTerm() } // every other package's init has run: TERM back as it was
func main() {
	if autostack.StartedAsPlugin(os.Args[0]) {
		if err := autostack.ServePlugin(registry.Kinds()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(newApp(registry.Kinds(), os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}
