package deploy

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// WriteFile writes the plan to file, so that a reader never sees half a plan.
func (p *Plan) WriteFile(file string) error {
	data, err := p.Marshal()
	if err != nil {
		return err
	}
	return errors.Wrap(atomicwrite.File(file, data), "save the plan")
}

// PlanDestination refuses a plan file that names a folder, or a file in a folder that does not
// exist, before a preview runs: otherwise the whole preview ran only to fail at its end.
func PlanDestination(file string) error {
	if info, err := os.Stat(file); err == nil && info.IsDir() {
		return errors.Errorf("--save-plan %s is a folder: name the plan file to write, such as %s", file, filepath.Join(file, "plan.json"))
	}
	if info, err := os.Stat(filepath.Dir(file)); err != nil || !info.IsDir() {
		return errors.Errorf("--save-plan %s: the folder %s does not exist", file, filepath.Dir(file))
	}
	return nil
}

// ReadPlanFile reads the plan file up --plan applies.
func ReadPlanFile(file string) (*Plan, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.Wrap(err, "read the plan")
	}
	return ReadPlan(file, data)
}

// Guard is up's guard with a saved plan (Request.Guard, with Whole): every stack is checked
// against its part of the plan (Deployer.CheckPlan), parallel at once, before any is changed, and
// when one is refused, all are: nothing is half-applied.
func (p *Plan) Guard(parallel int, timeout time.Duration) func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
	return func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
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
		d := &Deployer{Backend: b, Throttled: CloudRetryAfter}
		q := queue.Queue{Parallel: parallel, StackTimeout: timeout}
		checks := q.Run(ctx, targets, nil, func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
			planned := p.Stack(t.Key())
			if planned == nil {
				return outcome.Outcome{Status: outcome.Blocked, Err: errors.Errorf("stack %s (%s) is not in the plan: preview it with --save-plan",
					t.Key(), t.File)}
			}
			if err := d.CheckPlan(ctx, t, *planned); err != nil {
				return outcome.Outcome{Status: outcome.Blocked, Err: err}
			}
			return outcome.Outcome{Status: outcome.Done}
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
