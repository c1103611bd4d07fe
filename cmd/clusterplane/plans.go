package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
)

// savePlan is preview's finish with --save-plan: the plan of every stack previewed, written to
// file only when every stack has its part (a plan covers the whole fleet or nothing).
func (f *factory) savePlan(file string) func(outcomes []deploy.Outcome) error {
	return func(outcomes []deploy.Outcome) error {
		p, err := deploy.NewPlan(outcomes, time.Now())
		if err != nil {
			return err
		}
		data, err := p.Marshal()
		if err != nil {
			return err
		}
		// Written beside its final name and renamed, so that a reader never sees half a plan.
		tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
		if err != nil {
			return errors.Wrap(err, "save the plan")
		}
		defer os.Remove(tmp.Name())
		if _, err := tmp.Write(data); err != nil {
			tmp.Close()
			return errors.Wrap(err, "save the plan")
		}
		if err := tmp.Close(); err != nil {
			return errors.Wrap(err, "save the plan")
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			return errors.Wrap(err, "save the plan")
		}
		return errors.Wrap(os.Rename(tmp.Name(), file), "save the plan")
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

// checkPlan is up's guard with --plan: every stack is checked against its part of the plan
// (CheckPlan) before any is changed, and when one is refused, all are: nothing is half-applied.
func (f *factory) checkPlan(p *deploy.Plan, o *deployOptions) func(ctx context.Context, b deploy.Backend, targets []deploy.Target) (map[string]error, error) {
	return func(ctx context.Context, b deploy.Backend, targets []deploy.Target) (map[string]error, error) {
		given := map[string]bool{}
		for _, t := range targets {
			given[t.Key()] = true
		}
		var missing []string
		for _, s := range p.Stacks {
			if !given[s.Stack] {
				missing = append(missing, s.Stack+" ("+s.File+")")
			}
		}
		if len(missing) > 0 {
			return nil, errors.Errorf("the plan holds %s, which no manifest given deploys: give every manifest the plan was "+
				"made from, or none to take the plan's files", strings.Join(missing, ", "))
		}
		d := &deploy.Deployer{Backend: b, Throttled: deploy.CloudRetryAfter}
		q := deploy.Queue{Parallel: o.parallel, StackTimeout: o.timeout}
		checks := q.Run(ctx, targets, nil, func(ctx context.Context, t deploy.Target) deploy.Outcome {
			planned := p.Stack(t.Key())
			if planned == nil {
				return deploy.Outcome{Status: deploy.Blocked, Err: errors.Errorf("stack %s (%s) is not in the plan: preview it with --save-plan",
					t.Key(), t.File)}
			}
			if err := d.CheckPlan(ctx, t, *planned); err != nil {
				return deploy.Outcome{Status: deploy.Blocked, Err: err}
			}
			return deploy.Outcome{Status: deploy.Done}
		})
		refused := map[string]error{}
		var moved []string
		for _, c := range checks {
			if c.Err != nil {
				refused[c.Target.Key()] = c.Err
				moved = append(moved, c.Target.Key())
			}
		}
		if len(refused) == 0 {
			return nil, nil
		}
		sort.Strings(moved)
		for _, t := range targets {
			if refused[t.Key()] == nil {
				refused[t.Key()] = errors.Errorf("not applied: the plan no longer holds for %s, and a plan is applied whole or not at all",
					strings.Join(moved, ", "))
			}
		}
		return refused, nil
	}
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
