// Command schemagen writes the JSON Schemas of the four kinds' manifests and stack inputs, and of
// the deploy commands' JSON report, into the directory given as its argument. `make protos` runs it, so `make check-generated` fails
// when a proto changes and the committed schemas do not.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"github.com/clusterplane/clusterplane/pkg/describe/jsonschema"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: schemagen DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := apidoc.Err(); err != nil {
		return err
	}
	files, err := jsonschema.Files(registry.Kinds().StackInputs()...)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files["report.v1.schema.json"] = runreport.ReportSchema
	files["reportfile.v1.schema.json"] = runreport.ReportFileSchema
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
