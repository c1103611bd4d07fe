package pipeline

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/retry"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// PlanGuard is up's guard with the saved plan p (Request.Guard, with Whole): every stack is checked
// against its part of the plan (deploy.Deployer.CheckPlan), parallel at once, before any is changed, and
// when one is refused, all are: nothing is half-applied.
func PlanGuard(p *savedplan.Plan, allow replace.Allowed, parallel int, timeout time.Duration) func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
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
		d := &deploy.Deployer{Backend: b, Throttled: retry.CloudRetryAfter}
		q := queue.Queue{Parallel: parallel, StackTimeout: timeout}
		checks := q.Run(ctx, targets, nil, func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
			planned := p.Stack(t.Key())
			if planned == nil {
				return outcome.Outcome{Status: outcome.Blocked, Err: errors.Errorf("stack %s (%s) is not in the plan: preview it with --save-plan",
					t.Key(), t.File)}
			}
			if err := d.CheckPlan(ctx, t, *planned, allow); err != nil {
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
