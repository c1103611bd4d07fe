package main

import (
	"fmt"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// savePlan is preview's finish with --save-plan: the plan of every stack previewed, written to
// file only when every stack has its part (a plan covers the whole fleet or nothing).
func savePlan(file string) func(outcomes []outcome.Outcome) error {
	return func(outcomes []outcome.Outcome) error {
		p, err := savedplan.NewPlan(outcomes, time.Now())
		if err != nil {
			return err
		}
		return p.WriteFile(file)
	}
}

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
