package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
)

// savePlan is preview's finish with --save-plan: the plan of every stack previewed, written to
// file only when every stack has its part (a plan covers the whole fleet or nothing).
func savePlan(file string) func(outcomes []deploy.Outcome) error {
	return func(outcomes []deploy.Outcome) error {
		p, err := deploy.NewPlan(outcomes, time.Now())
		if err != nil {
			return err
		}
		return p.WriteFile(file)
	}
}

// planDestination refuses a --save-plan that names a folder, or a file in a folder that does not
// exist, before the preview runs: otherwise the whole preview ran only to fail at its end.
func planDestination(file string) error {
	if info, err := os.Stat(file); err == nil && info.IsDir() {
		return errors.Errorf("--save-plan %s is a folder: name the plan file to write, such as %s", file, filepath.Join(file, "plan.json"))
	}
	if info, err := os.Stat(filepath.Dir(file)); err != nil || !info.IsDir() {
		return errors.Errorf("--save-plan %s: the folder %s does not exist", file, filepath.Dir(file))
	}
	return nil
}

// readPlan reads the plan file up --plan applies.
func readPlan(file string) (*deploy.Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.Wrap(err, "read the plan")
	}
	return deploy.ReadPlan(file, data)
}

// planFiles are the files up --plan deploys: those given, or the plan's own when none is.
func planFiles(f *factory, files []string, planFile string) ([]string, *deploy.Plan, error) {
	p, err := readPlan(planFile)
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
