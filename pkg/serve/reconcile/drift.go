package reconcile

import (
	"context"
	"database/sql"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pkg/errors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// DriftArgs is a drift check: one object's stack compared with the cloud, as `clusterplane
// status --drift` compares it, its Drifted condition written from what the check finds.
type DriftArgs struct {
	ObjectID string `json:"object_id"`
}

// Kind names the job on the queue.
func (DriftArgs) Kind() string { return "clusterplane_drift" }

// DriftQueue is the queue of the drift checks: its own, one check at a time on each replica, so
// that checks never keep a write's reconcile waiting for a worker.
const DriftQueue = "drift"

// SweepArgs is the periodic job that queues a drift check of every Ready object.
type SweepArgs struct{}

// Kind names the job on the queue.
func (SweepArgs) Kind() string { return "clusterplane_drift_sweep" }

// InsertOpts put the sweep on the drift checks' queue, never a write's, and keep one waiting at
// most: sweeps due while another waits (a short interval, a busy replica) are not queued again.
func (SweepArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: DriftQueue, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByState: waiting}}
}

// Sweeps is the periodic job that queues the drift checks every interval. River runs it on one
// replica only (its leader), so that several replicas check each object once, not once each.
func Sweeps(every time.Duration) *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
		return SweepArgs{}, nil
	}, &river.PeriodicJobOpts{RunOnStart: true})
}

// Sweep queues a drift check of every Ready object, spread evenly over the interval: each check
// reads the cloud, and a thousand at once would spend a DigitalOcean token's requests of the
// minute (250) many times over.
type Sweep struct {
	river.WorkerDefaults[SweepArgs]
	Store *store.Store
	Every time.Duration
}

// waiting are the states of a check not yet done: an object has one such check at most, so
// that a sweep run again (a new leader, a restart), or one that comes before the last sweep's
// checks are through (more objects than a replica checks in an interval), queues none twice.
var waiting = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRunning, rivertype.JobStateScheduled, rivertype.JobStateRetryable}

// Work queues the checks.
func (s *Sweep) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	ids, err := s.Store.Ready(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	client, err := river.ClientFromContextSafely[*sql.Tx](ctx)
	if err != nil {
		return errors.Wrap(err, "queue the drift checks")
	}
	step := s.Every / time.Duration(len(ids))
	start := time.Now()
	params := make([]river.InsertManyParams, 0, len(ids))
	for i, id := range ids {
		params = append(params, river.InsertManyParams{Args: DriftArgs{ObjectID: id}, InsertOpts: &river.InsertOpts{
			Queue: DriftQueue, MaxAttempts: 1, ScheduledAt: start.Add(time.Duration(i) * step),
			UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: waiting}}})
	}
	_, err = client.InsertMany(ctx, params)
	return errors.Wrap(err, "queue the drift checks")
}

// Drift runs a drift check.
type Drift struct {
	river.WorkerDefaults[DriftArgs]
	// Worker is the reconcile worker whose settings (store, backend, kinds) the check uses.
	Worker *Worker
}

// Work compares the object's stack with the cloud and writes Drifted into the status, but only when the status still reports the generation the check
// read and no worker is deploying: a check that ran beside a write says nothing of the new spec.
// A check that cannot run (the stack busy, the cloud not answering) writes Drifted=Unknown; it is
// not retried, since the next sweep checks again.
func (d *Drift) Work(ctx context.Context, job *river.Job[DriftArgs]) error {
	w := d.Worker
	o, err := w.Store.Find(ctx, job.Args.ObjectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil || o.Deleting || !o.StackOwned {
		return err
	}
	m, _, err := w.manifest(ctx, o)
	if err != nil {
		return nil // a worker's reconcile reports this as Invalid
	}
	out, err := w.run(ctx, operation.Status, m, func(ctx context.Context, dep *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return dep.Status(ctx, t, deploy.StatusOptions{Drift: true,
			Exists: func(key string) (bool, error) { return deploytarget.Deployed(ctx, dep.Backend, key) }})
	})
	drifted := condition("Drifted", "Unknown", "CheckFailed", "the drift check did not run: "+reason(out, err))
	if err == nil && out.Report != nil {
		c := out.Report.Condition("Drifted")
		drifted = condition(c.Type, c.Status, c.Reason, c.Message)
	}
	drifted, md, err := w.owned(ctx, o, m.Target, drifted, out.Report)
	if err != nil {
		return err
	}
	return w.Store.EditStatus(ctx, o.Type, o.ID, Controller, withMetadata(checked(o.Generation, redacted(drifted)), md))
}

// checked is the edit a drift check of generation makes to the last status: its Drifted
// condition, the rest kept (the metadata is the last deploy's: a check reads the cloud in a
// preview, which records nothing). It writes nothing when the object is being
// deleted, its generation moved on since the check read it, the status reports another, or a
// worker is deploying: the check would then speak of a spec that is no longer the object's.
func checked(generation int64, drifted store.Condition) func(store.Object, *store.ControllerStatus) (store.ControllerStatus, bool) {
	return func(now store.Object, prior *store.ControllerStatus) (store.ControllerStatus, bool) {
		if prior == nil || now.Deleting || now.Generation != generation || prior.ObservedGeneration != generation {
			return store.ControllerStatus{}, false
		}
		if p, _ := prior.Condition("Progressing"); p.Status == "True" {
			return store.ControllerStatus{}, false
		}
		st := *prior
		st.Conditions = withCondition(prior.Conditions, drifted)
		return st, true
	}
}

// reason is why an operation did not give a report.
func reason(out outcome.Outcome, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case out.Err != nil:
		return out.Err.Error()
	}
	return out.Reason
}

// withCondition replaces the condition of c's type, or adds it.
func withCondition(cs []store.Condition, c store.Condition) []store.Condition {
	out := make([]store.Condition, 0, len(cs)+1)
	found := false
	for _, old := range cs {
		if old.Type == c.Type {
			old, found = c, true
		}
		out = append(out, old)
	}
	if !found {
		out = append(out, c)
	}
	return out
}
