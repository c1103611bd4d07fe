package main

import (
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// planFiles are the files up --plan deploys: those given, or the plan's own when none is.
func planFiles(f *factory, files []string, planFile string) ([]string, *savedplan.Plan, error) {
	p, err := savedplan.ReadPlanFile(planFile)
	if err != nil {
		f.printError(err)
		return nil, nil, cli.Exit(exitcode.Invalid)
	}
	if len(files) == 0 {
		files = p.Files()
		if len(files) == 0 {
			fmt.Fprintf(f.Stderr, "the plan %s holds no stack\n", planFile)
			return nil, nil, cli.Exit(exitcode.Invalid)
		}
	}
	return files, p, nil
}
