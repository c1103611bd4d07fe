package reconcile

import (
	"context"
	"database/sql"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
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

// Sweep checks every Ready object once an interval, as `clusterplane drift` checks a fleet.
// The fleet scan comes first: each cloud account's clusters are listed once (a request per 200
// clusters, per region on Civo) and every object's stack is judged against the lists and its
// records, with no engine; an object the scan vouches for (its cloud, manifest and build as its
// last up left them) is written InSync there and then. Only an object the scan cannot vouch for
// (a difference to confirm, records it cannot read, a stack changed since its last up) gets a
// check of its own, a refreshing preview, queued and spread evenly over the interval: each
// reads the cloud, and a thousand at once would spend a DigitalOcean token's requests of the
// minute (250) many times over.
type Sweep struct {
	river.WorkerDefaults[SweepArgs]
	Store *store.Store
	Every time.Duration
	// Worker is the reconcile worker whose settings (backend, kinds, policy) the scan uses; nil
	// gives every object a check of its own.
	Worker *Worker

	// insert, when set, stands in for River's InsertMany: tests read the checks queued.
	insert func(ctx context.Context, params []river.InsertManyParams) error
}

// waiting are the states of a check not yet done: an object has one such check at most, so
// that a sweep run again (a new leader, a restart), or one that comes before the last sweep's
// checks are through (more objects than a replica checks in an interval), queues none twice.
var waiting = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRunning, rivertype.JobStateScheduled, rivertype.JobStateRetryable}

// Work scans the Ready objects and queues the checks of those the scan did not vouch for. An
// object whose stack the API does not own is not checked (Drift does nothing with one).
func (s *Sweep) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	objects, err := s.Store.Objects().Ready(ctx)
	if err != nil {
		return err
	}
	objects = slices.DeleteFunc(objects, func(o store.Object) bool { return !o.StackOwned })
	if len(objects) == 0 {
		return nil
	}
	if s.Worker != nil {
		if objects, err = s.Worker.scanned(ctx, objects); err != nil {
			return err
		}
	}
	return s.queue(ctx, objects)
}

// queue queues a check of each object, spread evenly over the interval from now.
func (s *Sweep) queue(ctx context.Context, objects []store.Object) error {
	if len(objects) == 0 {
		return nil
	}
	insert := s.insert
	if insert == nil {
		client, err := river.ClientFromContextSafely[*sql.Tx](ctx)
		if err != nil {
			return errors.Wrap(err, "queue the drift checks")
		}
		insert = func(ctx context.Context, params []river.InsertManyParams) error {
			_, err := client.InsertMany(ctx, params)
			return err
		}
	}
	step := s.Every / time.Duration(len(objects))
	start := time.Now()
	params := make([]river.InsertManyParams, 0, len(objects))
	for i, o := range objects {
		opts := &river.InsertOpts{Queue: DriftQueue, MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: waiting}}
		// The first check is due now: a job given a time is inserted as scheduled and waits for
		// River's scheduler to make it available (seconds), however near the time is.
		if i > 0 {
			opts.ScheduledAt = start.Add(time.Duration(i) * step)
		}
		params = append(params, river.InsertManyParams{Args: DriftArgs{ObjectID: o.ID}, InsertOpts: opts})
	}
	return errors.Wrap(insert(ctx, params), "queue the drift checks")
}

// sweepPart is about how many objects one run of the pipeline judges: whole clusters, with
// their pools (a pool's stack reads its cluster's outputs, and the scan vouches for that read
// only with the cluster judged in the same run), so that a fleet's manifests and records are
// not all held at once. The parts share one scanner: the cloud is listed once for all of them.
const sweepPart = 500

// scanParallel is how many stacks of a part are judged at once: a judged stack's status reads
// its records, no engine runs.
const scanParallel = 4

// notVouched is the outcome of a stack the scan did not vouch for: it gets a check of its own.
const notVouched = "the fleet scan did not vouch for it"

// scanned checks objects with the fleet scan, a part at a time, writing Drifted for each it
// vouches for, and returns the others, oldest first: each needs a check of its own.
func (w *Worker) scanned(ctx context.Context, objects []store.Object) ([]store.Object, error) {
	scanner := scan.New()
	var left []store.Object
	for _, part := range parts(objects, sweepPart) {
		l, err := w.scanPart(ctx, scanner, part)
		if err != nil {
			return nil, err
		}
		left = append(left, l...)
	}
	slices.SortStableFunc(left, func(a, b store.Object) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return left, nil
}

// parts splits objects into parts of whole clusters (a cluster and its pools), each of about
// size objects, in the order the clusters first come.
func parts(objects []store.Object, size int) [][]store.Object {
	byCluster := map[string][]store.Object{}
	var order []string
	for _, o := range objects {
		c := o.ClusterID
		if o.Type == store.Cluster {
			c = o.ID
		}
		if _, ok := byCluster[c]; !ok {
			order = append(order, c)
		}
		byCluster[c] = append(byCluster[c], o)
	}
	var out [][]store.Object
	var part []store.Object
	for _, c := range order {
		if len(part) > 0 && len(part)+len(byCluster[c]) > size {
			out = append(out, part)
			part = nil
		}
		part = append(part, byCluster[c]...)
	}
	if len(part) > 0 {
		out = append(out, part)
	}
	return out
}

// scanPart runs status --drift over one part's stacks through the pipeline with the fleet scan,
// the engine left out: a stack the scan vouches for is read from its records alone, the others
// are left (notVouched). Each object the scan finds in sync and whose records say the API's
// worker made the stack's last update has its Drifted written as its own check would write it;
// the rest are returned. A run that
// fails leaves every object of the part to its own check.
func (w *Worker) scanPart(ctx context.Context, scanner *scan.Scanner, part []store.Object) ([]store.Object, error) {
	byKey := map[string]store.Object{}
	var manifests []deploytarget.Manifest
	for _, o := range part {
		m, _, err := w.manifest(ctx, o)
		if err != nil {
			continue // its own check says nothing either: a reconcile reports it Invalid
		}
		if _, two := byKey[m.Target.Key()]; two {
			continue
		}
		byKey[m.Target.Key()] = o
		manifests = append(manifests, m)
	}
	run := w.pipeline
	if run == nil {
		run = pipeline.Run
	}
	vouched := pipeline.Status(true).Around(func(c pipeline.Call) outcome.Outcome {
		// A cluster the scan found carrying the stack's mark that the stack does not record is
		// known only from the scan's list: the object's own check lists nothing, so the sweep
		// writes it.
		if !c.Scanned.Unchanged && len(c.Scanned.Unrecorded) == 0 {
			return outcome.NotRun(outcome.LeftOut, notVouched)
		}
		return c.Run()
	})
	outcomes, err := run(ctx, pipeline.Request{Op: vouched, Scan: true, Scanner: scanner, Manifests: manifests,
		Files: deploytarget.Files{Kinds: w.Kinds}, Backend: w.Backend, Policy: w.Policy, Parallel: scanParallel,
		StackTimeout: w.StackTimeout, SkipBlocked: true})
	if err != nil && w.Log != nil {
		w.Log.WarnContext(ctx, "the drift sweep's fleet scan did not run: each object gets a check of its own", "error", err.Error())
	}
	done := map[string]bool{}
	var records stackstate.Backend
	if err == nil {
		records, err = w.Backend()
	}
	for _, out := range outcomes {
		o, ok := byKey[out.Target.Key()]
		if err != nil || !ok || out.NotRun || out.Status != outcome.Done || out.Report == nil {
			continue
		}
		c := out.Report.Condition("Drifted")
		if c.Status != "False" && c.Reason != outcome.UnrecordedInCloud {
			continue
		}
		md, settled, err := w.ownedByRecords(ctx, records, o, out.Target.Key())
		if err != nil {
			return nil, err
		}
		if !settled {
			continue
		}
		drifted := served(c)
		if err := w.Store.Statuses().Edit(ctx, o.Type, o.ID, Controller, withMetadata(checked(o.Generation, redacted(drifted)), md)); err != nil {
			return nil, err
		}
		done[o.ID] = true
	}
	var left []store.Object
	for _, o := range part {
		if !done[o.ID] {
			left = append(left, o)
		}
	}
	return left, nil
}

// ownedByRecords is owned for a stack the scan vouched for, read from the stack's records in the
// backend's storage rather than from its history through the Pulumi CLI, a process a stack,
// which would make a fleet's sweep take hours. settled tells that the records say it: the object
// has no mark to compare (its StackOwned alone says), or the stack's newest record is an update
// the worker made for it, so nothing changed the stack since; md is then the metadata owned
// sets. Otherwise (an update, destroy or refresh since, or records that cannot be read) the
// object's own check reads the history and says who changed the stack.
func (w *Worker) ownedByRecords(ctx context.Context, records stackstate.Backend, o store.Object, key string) (md map[string]any, settled bool, err error) {
	_, marked, err := w.Store.Jobs().MarkOf(ctx, o.ID)
	if err != nil || !marked {
		return nil, err == nil, err
	}
	if records == nil {
		return nil, false, nil
	}
	project, stack, _ := strings.Cut(key, "/")
	rec, err := records.Records(ctx, project, stack)
	if err != nil || rec.Newest != "update" || rec.Last == nil || rec.Last.Operation != "update" || rec.Last.Message != markOf(o) {
		return nil, false, nil
	}
	if err := w.Store.Jobs().LoseStack(ctx, o.ID, ""); err != nil {
		return nil, false, err
	}
	return map[string]any{"changed_outside_api": nil}, true, nil
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
	o, err := w.Store.Objects().Find(ctx, job.Args.ObjectID)
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
	logctx.Add(ctx, slog.String("stack", m.Target.Key()))
	out, err := w.run(ctx, m, pipeline.Request{Op: pipeline.Status(true)})
	drifted := condition("Drifted", "Unknown", "CheckFailed", "the drift check did not run: "+reason(out, err))
	if err == nil && out.Report != nil {
		c := out.Report.Condition("Drifted")
		drifted = served(c)
	}
	drifted, md, err := w.owned(ctx, o, m.Target, drifted, out.Report)
	if errors.Is(err, errOutrun) {
		return nil // the next check reads the stack as the change left it
	}
	if err != nil {
		return err
	}
	return w.Store.Statuses().Edit(ctx, o.Type, o.ID, Controller, withMetadata(checked(o.Generation, redacted(drifted)), md))
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
