package upgraderun

import (
	"context"
	"fmt"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgradeplan"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// Fleet is how upgrade apply reaches a fleet's stacks: the deploy commands' files, backend and
// what they say, so that each step's up is the pipeline's, with its guards and pace.
type Fleet struct {
	Files   deploytarget.Files
	Backend func() (stackstate.Backend, error)
	// Say is told what the rollout and its deploys say, a line at a time; Progress each cluster's
	// step in flight (Stacks.Progress), nil for none.
	Say      func(line string)
	Progress func(cluster, line string)
	// StackTimeout bounds one up or refresh of a stack.
	StackTimeout time.Duration
}

// Clusters are the clusters of targets (read from paths) to upgrade, each headed for to when it
// is set, each found by its stack's cluster id where the stack is read. A cluster whose cloud
// cannot be asked (no token) is an error: nothing is upgraded.
func (f Fleet) Clusters(ctx context.Context, targets []deploytarget.Target, paths []string, to string) ([]upgrade.Cluster, error) {
	clusterTargets, clusters, err := upgradeplan.UpgradeClusters(targets, paths)
	if err != nil {
		return nil, err
	}
	var problems []error
	for i, c := range clusters {
		if to != "" {
			clusters[i].Goal = to
		}
		if n, ok := c.Cloud.(upgrade.NoCloud); ok {
			problems = append(problems, errors.Wrapf(n.Err, "%s", c.File))
		}
		if err := upgrade.Writable(clusters[i]); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return nil, &deploytarget.ProblemsError{Problems: problems}
	}
	if pools := len(targets) - len(clusters); pools > 0 && f.Say != nil {
		f.Say(fmt.Sprintf("node pools left as written: %d (a pool follows its cluster's version)", pools))
	}
	upgradeplan.StackClusterIDs(ctx, f.Backend, clusterTargets, clusters)
	return clusters, nil
}

// Stacks are the fleet's stacks as a rollout changes them: each manifest written in place
// (upgrade.WriteFile), each up and refresh a pipeline run of the cluster's file.
func (f Fleet) Stacks() Stacks {
	return Stacks{
		Write:    upgrade.WriteFile,
		Up:       func(ctx context.Context, c upgrade.Cluster) error { return f.run(ctx, c, true) },
		Refresh:  func(ctx context.Context, c upgrade.Cluster) error { return f.run(ctx, c, false) },
		Say:      f.Say,
		Progress: f.Progress,
	}
}

// run is up (or refresh, when up is false) of the cluster's file, every stack of it run by the
// engine (Deep: no fleet scan for one file), and an error unless each ended done.
func (f Fleet) run(ctx context.Context, c upgrade.Cluster, up bool) error {
	op, pace := pipeline.Refresh(deploy.RefreshOptions{}), queue.RefreshingByID
	if up {
		op, pace = pipeline.Up(deploy.UpOptions{Yes: true}), queue.Reading(true)
	}
	outcomes, err := pipeline.Run(ctx, pipeline.Request{Op: op, Paths: []string{c.File}, Files: f.Files, Backend: f.Backend,
		Deep: true, Parallel: 1, StackTimeout: f.StackTimeout, SkipBlocked: true, Pace: pace, Say: f.Say})
	if err != nil {
		return err
	}
	for _, o := range outcomes {
		if o.Status != outcome.Done {
			why := o.Reason
			if o.Err != nil {
				why = o.Err.Error()
			}
			return errors.Errorf("%s %s: %s", o.Target.Key(), o.Status, why)
		}
	}
	return nil
}

// ExitCode is the rollout's exit code: 0 when every cluster reached its goal, 3 when a blocked
// cluster stopped it, 1 when a step failed, 130 when interrupted.
func (r Report) ExitCode() int {
	switch r.Stop {
	case Interrupted:
		return exitcode.Interrupted
	case Blocked:
		return exitcode.Blocked
	case Failed:
		return exitcode.Invalid
	}
	return exitcode.OK
}

// PlanExitCode is --dry-run's exit code: 3 when a run of waves would stop at a cluster (Stops).
func PlanExitCode(waves []upgrade.Wave) int {
	for _, w := range waves {
		for _, p := range w.Plans {
			if Stops(p) {
				return exitcode.Blocked
			}
		}
	}
	return exitcode.OK
}
