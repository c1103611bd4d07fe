// Command clusterplane is one command for every Clusterplane kind: it validates manifests and
// stack inputs (many files, directories, stdin), plans and diffs them offline, explains their
// fields, prints their JSON Schemas and lists kinds and regions. Each file is dispatched on its
// `kind` to that kind's program, through the same code the program binaries run.
package main

import (
	"os"
	"path/filepath"

	"github.com/clusterplane/clusterplane/pkg/provider/civoprovider"

	"github.com/clusterplane/clusterplane/registry"
)

// programs are the programs clusterplane dispatches to, in the order of the README's table.
var programs = func() []kind {
	var out []kind
	for _, k := range registry.Kinds() {
		out = append(out, kindOf(k))
	}
	return out
}()

func main() {
	if filepath.Base(os.Args[0]) == civoprovider.PluginName {
		servePlugin()
		return
	}
	os.Exit(newApp(programs, os.Stdin, os.Stdout, os.Stderr).run(os.Args[1:]))
}
