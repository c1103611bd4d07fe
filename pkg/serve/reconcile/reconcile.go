// Package reconcile is the service's controller: a job on the queue (River, on the service's
// PostgreSQL) per write, and a worker that runs clusterplane's deploy pipeline for the object's
// stack (the same reading, checks and guards as `clusterplane up`, then status) and reports the
// outcome as the object's controller status. Any replica's worker may take any job; the stack's
// lock keeps two from applying one stack at once, and a job whose worker died is queued again,
// in its old place, once its lease runs out (lease.go), within a minute.
package reconcile

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pkg/errors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Controller is the controller_name the workers report under.
const Controller = "clusterplane"

// Args is a reconcile job: the object to bring to its spec (or to destroy, once deleted).
type Args struct {
	ObjectID string `json:"object_id"`
}

// Kind names the job on the queue.
func (Args) Kind() string { return "clusterplane_reconcile" }

// InsertOpts bounds the retries of a failure. Jobs are not made unique per object: River's
// uniqueness always counts a running job, and a write while one runs (which may have read the
// spec before the write) must queue another. A second job finds the stack as asked and runs no
// engine (the pipeline's fleet scan), and the stack's lock keeps two from applying at once.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// Worker runs the pipeline for one object per job.
type Worker struct {
	river.WorkerDefaults[Args]
	Store *store.Store
	Kinds kinds.List
	// Backend opens where the stacks live (the command's, or the tests' fake).
	Backend func() (stackstate.Backend, error)
	// Policy, when set, is the organisation's policy, evaluated before any stack runs.
	Policy *policy.Policy
	// StackTimeout bounds one stack's operation.
	StackTimeout time.Duration
	// Log is told the failures River retries.
	Log *slog.Logger

	// pipeline, when set, stands in for pipeline.Run: tests count the runs.
	pipeline func(ctx context.Context, r pipeline.Request) ([]outcome.Outcome, error)
}

// Work reconciles the job's object. A refusal (a change the CLI would refuse, a denied policy)
// is reported and ends the job: running it again would refuse again. A failure is reported and
// returned, so that River retries it with its backoff.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	o, err := w.Store.Objects().Find(ctx, job.Args.ObjectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted and forgotten since the job was queued
	}
	if err != nil {
		return err
	}
	if o.Deleting && !o.StackOwned {
		// No worker ever deployed its stack: there is none, or it was made outside the API
		// (taken) and is not the object's to destroy. Deleting the object forgets it.
		return w.forget(ctx, job, o)
	}
	m, platform, err := w.manifest(ctx, o)
	if err != nil {
		return w.invalid(ctx, job, o, platform, err)
	}
	logctx.Add(ctx, slog.String("stack", m.Target.Key()))
	if taken, err := w.taken(ctx, o, m.Target); err != nil || taken != "" {
		if err != nil {
			// The stack could not even be looked for (no Pulumi CLI, the backend unreachable):
			// said in the status and the log like a failed up, and retried.
			st := failed(err.Error())
			if rerr := w.setStatus(ctx, o, st); rerr != nil {
				return rerr
			}
			return w.retry(ctx, job, o, "up", st)
		}
		return w.setStatus(ctx, o, refused("Refused", taken))
	}
	if done, err := w.guard(ctx, o, m.Target); done || err != nil {
		return err
	}
	under := progressing(o)
	under.Metadata = metadata(o, platform, nil)
	if err := w.setStatus(ctx, o, under); err != nil {
		return err
	}
	if o.Deleting {
		return w.destroy(ctx, job, o, m)
	}
	st, busy := w.apply(ctx, job.JobRow, o, m, platform)
	if handedBack(ctx) {
		// The status stays Progressing: the job goes on, on the next replica to take it up.
		return ErrHandedBack
	}
	if busy {
		return river.JobSnooze(busyWait)
	}
	if err := w.remember(ctx, o, m.Target); err != nil && w.Log != nil {
		// The next up records it; until then the last mark stands.
		w.Log.WarnContext(ctx, "could not record the stack's update as the object's", "kind", o.Type, "name", o.Name, "error", err.Error())
	}
	st.Metadata = metadata(o, platform, st.Metadata)
	if rerr := w.setStatus(ctx, o, st); rerr != nil {
		return rerr
	}
	return w.retry(ctx, job, o, "up", st)
}

// apply runs up for the object's manifest and says the status it ends in: after a successful up,
// the stack's conditions and outputs as status reads them. attempt is the job's: on a retry,
// what an interrupted attempt left on the stack is mended first (Deployer.TakeOver). It is one
// run of the pipeline (reconciled), its checks and policy said once.
//
// busy tells that another operation holds the stack (another job of the object, started by a
// write while this one waited, or a clusterplane up), or that another job of the object whose
// worker died left it interrupted and is about to be taken up again (its lease): the job waits
// its turn (River's snooze, no attempt spent) rather than fail.
func (w *Worker) apply(ctx context.Context, job *rivertype.JobRow, o store.Object, m deploytarget.Manifest, platform string) (st store.ControllerStatus, busy bool) {
	r := reconciled{w: w, o: o, platform: platform, attempt: job.Attempt}
	up, err := w.run(ctx, m, pipeline.Request{Op: r.step(), Rotating: r.rotating(ctx)})
	if stackBusy(up) {
		return st, true
	}
	if job.Attempt == 1 && interrupted(up) {
		// A write while another job of the object had lost its worker (a replica killed): that
		// job is given back within a lease's time and mends what it left; this one waits for it
		// rather than end Interrupted over what is being mended.
		if other, lerr := w.Store.Jobs().LeasedElsewhere(ctx, o.ID, job.ID); lerr == nil && other {
			return st, true
		}
	}
	st = fromUp(o, up, err, platform)
	if job.Attempt > 1 {
		st = mayBeOwnCreate(st, up)
	}
	if len(r.replaced) > 0 {
		st = refused("Refused", "the change replaces "+strings.Join(r.replaced, ", ")+": the API changes clusters and pools "+
			"in place only; a replacement deletes the old one with its nodes. Put the spec back, or create another "+
			"with the new spec, move the workloads, and delete this one")
	}
	if up.Status == outcome.Done && r.status != nil {
		st = fromStatus(o, r.status)
		maps.Copy(st.Metadata, r.observed)
	}
	return st, false
}

// reconciled is the operation a reconcile runs over the object's stack, in the one run of the
// pipeline: up, the mending of what an interrupted attempt left and up again, and after a
// successful up the stack's status. What it found beyond up's outcome is kept in it.
type reconciled struct {
	w        *Worker
	o        store.Object
	platform string
	attempt  int
	// replaced are the resources up's preview would replace, which the API refuses.
	replaced []string
	// status is the stack's status after a successful up, observed what it holds beyond its spec.
	status   *outcome.StackStatus
	observed map[string]any
}

// step is the pipeline's step of the reconcile: an up, whose outcome is the step's.
func (r *reconciled) step() pipeline.Step {
	// The API's write is the yes, as --yes is clusterplane up's: a change in place, or a pool's
	// rotation (a surge pool, the old one drained onto it and deleted, where the engine would
	// replace it), deploys with no question to preview for. Never a replacement: a cluster or
	// pool replaced takes its nodes (and a cluster its pools) with it, so the API leaves that to
	// someone who means it (clusterplane up --allow-replace). AllowReplace is left empty, and
	// the engine's plan, not the effects table alone, tells a replacement: a stack that holds
	// resources is previewed before its up, as at a terminal, so that a change the table calls
	// in place but the engine would replace is refused too. A new stack holds nothing to replace
	// and goes straight to its up.
	opts := deploy.UpOptions{Yes: true, PreviewReplacements: true, Message: markOf(r.o)}
	return pipeline.Up(opts).Around(r.around)
}

// rotating reports each phase of a pool's rotation as the object's status while the up runs it.
func (r *reconciled) rotating(ctx context.Context) func(deploytarget.Target, string, rotation.State) {
	w, o := r.w, r.o
	return func(_ deploytarget.Target, pool string, state rotation.State) {
		st := rotating(pool, state)
		st.Metadata = metadata(o, r.platform, st.Metadata)
		if err := w.setStatus(ctx, o, st); err != nil && w.Log != nil {
			w.Log.WarnContext(ctx, "could not report a rotation's phase", "kind", o.Type, "name", o.Name, "error", err.Error())
		}
	}
}

// around runs the up, mends what an interrupted attempt left and runs it again, and after a
// successful up reads the stack's status; its outcome is up's.
func (r *reconciled) around(c pipeline.Call) outcome.Outcome {
	w, o := r.w, r.o
	up := c.Run()
	var unasked *replace.UnaskedError
	if errors.As(up.Err, &unasked) {
		r.replaced = unasked.Replaced
	}
	if r.attempt > 1 && interrupted(up) {
		// A retried job: the attempt before ended, or its worker died (its lease ran out, and a
		// replica's rescuer gave the job back). What that attempt left on the stack is this
		// job's to mend.
		if taken := c.TakeOver(); taken.Status == outcome.Done {
			up = c.Run()
		} else if w.Log != nil {
			w.Log.WarnContext(c.Context(), "could not mend what an interrupted operation left", "kind", o.Type, "name", o.Name,
				"outcome", string(taken.Status), "error", redact.FromEnv().String(fmt.Sprint(taken.Err)))
		}
	}
	if up.Status == outcome.Done {
		// Drifted is found, not assumed: up puts back what it can, but some changes made in the
		// cloud are not up's to undo (pkg/deploy's drift says which). The up read the cloud at
		// the start of its own engine run (serve never sets NoRefresh) and wrote what it read,
		// with its own changes, into the state, so status compares that state with the manifest
		// rather than reading the stack's resources from the cloud again: the same verdict, one
		// read fewer. deploy.StatusOptions.AfterUp says when the state is trusted so; status
		// reads the cloud in every other case.
		status := c.StatusAfterUp(up)
		if status.Report != nil {
			r.status, r.observed = status.Report, w.observed(c.Context(), c.Target, status.Report.Outputs)
		}
	}
	return up
}

// observed is the metadata a deployed stack says beyond its spec: a pool's active_nodes (the
// nodes its outputs list, as the last up or refresh recorded them) and the monthly_cost of what
// the manifest deploys, priced as `clusterplane up` prices it.
func (w *Worker) observed(ctx context.Context, t deploytarget.Target, outputs map[string]any) map[string]any {
	m := map[string]any{}
	if k, ok := w.Kinds.ByName(t.Name); ok && k.Nodes != "" {
		if nodes, ok := outputs[k.Nodes].([]any); ok {
			m["active_nodes"] = len(nodes)
		}
	}
	if d, ok := clouds.OfInput(t.Input); ok {
		prices, _ := cloud.ReadPrices(ctx, d)
		e := cost.Of(t.Input, prices)
		price := map[string]any{"min": e.Min, "max": e.Max, "currency": "USD", "source": e.Source, "date": e.Date}
		if len(e.Unknown) > 0 {
			price["unpriced_sizes"] = e.Unknown
		}
		m["monthly_cost"] = price
	}
	return m
}

// rotating is the status while up rotates one of the object's pools: Progressing, its reason
// Rotating, and the phase the rotation has recorded.
func rotating(pool string, s rotation.State) store.ControllerStatus {
	phase := cmp.Or(string(s.Phase), "started")
	message := fmt.Sprintf("rotating pool %s: %s (old pool %s, surge pool %s)", pool, phases[s.Phase],
		cmp.Or(s.OldID, "not known yet"), cmp.Or(s.SurgeID, "not made yet"))
	if s.Hop > 0 {
		message = fmt.Sprintf("rotating pool %s, second hop (back to its name): %s (pool %s, pool %s)", pool,
			phases[s.Phase], cmp.Or(s.OldID, "not known yet"), cmp.Or(s.SurgeID, "not made yet"))
	}
	return store.ControllerStatus{
		Conditions: []store.Condition{condition("Ready", "Unknown", "Rotating", message), condition("Progressing", "True", "Rotating", message)},
		Metadata: map[string]any{"rotation": map[string]any{"pool": pool, "phase": phase, "hop": s.Hop + 1,
			"old_pool_id": s.OldID, "surge_pool_id": s.SurgeID}},
	}
}

// phases say what has happened once a rotation has recorded each phase.
var phases = map[rotation.Phase]string{
	rotation.Start:        "started, the surge pool is made next",
	rotation.SurgeCreated: "the surge pool exists, its nodes are awaited",
	rotation.SurgeReady:   "the surge pool's nodes are Ready",
	rotation.Cordoned:     "the old pool's nodes are cordoned",
	rotation.Drained:      "the old pool is drained",
	rotation.OldDeleted:   "the old pool is deleted",
	rotation.Done:         "done",
	rotation.RollingBack:  "rolling back, the surge pool goes",
}

// busyWait is how long a job whose stack another operation holds waits before it tries again.
const busyWait = 5 * time.Second

// stackBusy tells that the outcome is another operation holding the stack's lock.
func stackBusy(out outcome.Outcome) bool {
	var busy *stackstate.StackBusyError
	return errors.As(out.Err, &busy)
}

// retry is the job's end: nil when done or refused (running it again would refuse again), the
// failure otherwise, for River to run the job again with its backoff (failing).
func (w *Worker) retry(ctx context.Context, job *river.Job[Args], o store.Object, operation string, st store.ControllerStatus) error {
	ready, _ := st.Condition("Ready")
	if ready.Status != "False" || final[ready.Reason] {
		return nil
	}
	return w.failing(ctx, job, o, errors.Errorf("%s of %s %s (%s): %s", operation, o.Type, o.Name, o.ID, ready.Message))
}

// final are the reasons of a Ready=False that another run would only say again.
var final = map[string]bool{"Refused": true, "Interrupted": true, "Invalid": true, GaveUp: true, Blocked: true}

// The reasons of a job that stopped for good, which only a client's write starts again.
const (
	// GaveUp is a failure on the job's last attempt (Args.InsertOpts).
	GaveUp = "GaveUp"
	// Blocked is a deleted cluster whose record cannot go while its pools' records remain.
	Blocked = "Blocked"
)

// failing ends a job that failed. While it has attempts left, the error is logged (nobody reads
// a job's errors but River) and returned, for River to retry it. On its last, River would discard
// it without a word, and the object would look as if work were still under way: the status and
// the log say it gave up, and the job is cancelled.
func (w *Worker) failing(ctx context.Context, job *river.Job[Args], o store.Object, err error) error {
	if job.Attempt < job.MaxAttempts {
		if w.Log != nil {
			w.Log.WarnContext(ctx, "reconcile failed; River retries it", "kind", o.Type, "name", o.Name,
				"attempt", job.Attempt, "max_attempts", job.MaxAttempts, "error", redact.FromEnv().String(err.Error()))
		}
		return err
	}
	return w.stop(ctx, o, GaveUp, fmt.Sprintf("gave up after %d attempts, the last failing with: %s. Nothing runs it again "+
		"by itself: a write (a PUT, or the DELETE again) queues another", job.Attempt, err), err)
}

// stop ends a job that cannot finish: its reason and message in the object's status (Ready and
// Progressing False, Degraded True) and the log, and the job cancelled, so that River does not
// run it again.
func (w *Worker) stop(ctx context.Context, o store.Object, reason, message string, err error) error {
	st := refused(reason, message)
	st.Conditions = append(st.Conditions, condition("Degraded", "True", reason, message))
	if rerr := w.setStatus(ctx, o, st); rerr != nil {
		return errors.Wrap(rerr, err.Error()) // the job is retried, to say it next time
	}
	if w.Log != nil {
		w.Log.ErrorContext(ctx, "reconcile stopped; River does not run it again", "kind", o.Type, "name", o.Name,
			"reason", reason, "error", redact.FromEnv().String(message))
	}
	return river.JobCancel(err)
}

// forget removes a deleted object's record once its stack is gone. A cluster whose pools are
// still recorded cannot go before them (a pool added while the cluster's delete was under way,
// before the store locked the cluster against that): said in its status, and the job stops,
// since no retry can help until the pools go. The last pool's Forget queues the cluster's
// reconcile again.
func (w *Worker) forget(ctx context.Context, job *river.Job[Args], o store.Object) error {
	err := w.Store.Objects().Forget(ctx, o.ID)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrReferenced):
		return w.stop(ctx, o, Blocked, "the cluster's stack is gone, but its record cannot be removed: node pools still "+
			"refer to it. It goes once their records do (the last pool forgotten queues it again)", err)
	}
	return w.failing(ctx, job, o, err)
}

// taken says why the object may not deploy its stack: the stack exists, and this service never
// reported on the object, so something else made it (a `clusterplane up` of a manifest of the
// same name, another service). Deploying would take that stack over, and with it clusters that
// are not the API's. "" when the stack is the object's, or new.
func (w *Worker) taken(ctx context.Context, o store.Object, t deploytarget.Target) (string, error) {
	if o.StackOwned {
		return "", nil
	}
	b, err := w.Backend()
	if err != nil {
		return "", err
	}
	exists, err := deploytarget.Deployed(ctx, b, t.Key())
	if err != nil {
		return "", errors.Wrap(err, "look for the stack")
	}
	if !exists {
		// Recorded before the stack is made, so that a worker that dies while making it leaves
		// the stack its object's to finish.
		return "", w.Store.Objects().OwnStack(ctx, o.ID)
	}
	return "stack " + t.Key() + " exists and was not made by this API (a clusterplane up of a manifest of " +
		"the same name?): the API does not take over a stack it did not make. Name the " + o.Type + " otherwise, " +
		"or delete this one (which forgets it and leaves that stack alone)", nil
}

// interrupted tells that the outcome is a refusal for what an interrupted operation left: the
// engine's lock, or creates left pending.
func interrupted(out outcome.Outcome) bool {
	var pending *stackstate.PendingCreatesError
	var locked *stackstate.LockedError
	var left *stackstate.InterruptedError
	return errors.As(out.Err, &pending) || errors.As(out.Err, &locked) || errors.As(out.Err, &left)
}

// destroy destroys a deleted object's stack, then forgets the object.
func (w *Worker) destroy(ctx context.Context, job *river.Job[Args], o store.Object, m deploytarget.Manifest) error {
	out, err := w.run(ctx, m, pipeline.Request{Op: pipeline.Destroy(deploy.DestroyOptions{Remove: true})})
	if err == nil && out.Status == outcome.Done {
		return w.forget(ctx, job, o)
	}
	if handedBack(ctx) {
		return ErrHandedBack
	}
	if stackBusy(out) {
		return river.JobSnooze(busyWait)
	}
	st := fromUp(o, out, err, "")
	if rerr := w.setStatus(ctx, o, st); rerr != nil {
		return rerr
	}
	return w.retry(ctx, job, o, "destroy", st)
}

// run runs the pipeline over the object's one manifest, read already (no file is written or
// read): r's step (Op) and its Rotating, the rest the worker's.
func (w *Worker) run(ctx context.Context, m deploytarget.Manifest, r pipeline.Request) (outcome.Outcome, error) {
	run := w.pipeline
	if run == nil {
		run = pipeline.Run
	}
	outcomes, err := run(ctx, pipeline.Request{Op: r.Op, Rotating: r.Rotating, Manifests: []deploytarget.Manifest{m},
		Files:   deploytarget.Files{Kinds: w.Kinds},
		Backend: w.Backend, Policy: w.Policy, Parallel: 1, StackTimeout: w.StackTimeout, SkipBlocked: true})
	if len(outcomes) == 1 {
		return outcomes[0], err
	}
	if err == nil {
		err = errors.Errorf("%s ran %d stacks, not 1", r.Op.Operation(), len(outcomes))
	}
	// The error is the reason: its row says it once.
	return outcome.Outcome{Status: outcome.Failed, Reason: err.Error(), Err: err, ErrSays: outcome.SaysItself}, err
}

// manifest is the object's manifest read into its target, in memory, by body.Read from its
// stored row: the one read of a body the API checked the request with, so that what the API
// accepted is what the worker deploys. A body no manifest can be made of is a body's problems;
// a manifest its kind no longer reads is a *deploytarget.ProblemsError, as the pipeline would say
// it.
func (w *Worker) manifest(ctx context.Context, o store.Object) (m deploytarget.Manifest, platform string, err error) {
	b, err := body.Stored(o.Name, o.ClusterID, o.Spec)
	if err != nil {
		return m, "", err
	}
	m, err = body.Read(ctx, w.Kinds, b, o.Type == store.NodePool, o.ClusterID, w.Store.Objects())
	return m, b.Spec.Platform.Type, err
}

// invalid reports a manifest that cannot be built or read: a body's problems are Invalid; a
// manifest its kind no longer reads is refused as the pipeline refuses it.
func (w *Worker) invalid(ctx context.Context, job *river.Job[Args], o store.Object, platform string, err error) error {
	var problems *deploytarget.ProblemsError
	if !errors.As(err, &problems) {
		return w.setStatus(ctx, o, refused("Invalid", err.Error()))
	}
	st := fromUp(o, outcome.Outcome{}, err, platform)
	if rerr := w.setStatus(ctx, o, st); rerr != nil {
		return rerr
	}
	return w.retry(ctx, job, o, "up", st)
}

// setStatus writes the controller's status of the object. Its messages come from the pipeline and
// the engine, which may quote a token or a passphrase: they are redacted as the command's output.
func (w *Worker) setStatus(ctx context.Context, o store.Object, st store.ControllerStatus) error {
	st.ControllerName = Controller
	st.ObservedGeneration = o.Generation
	for i := range st.Conditions {
		st.Conditions[i] = redacted(st.Conditions[i])
	}
	err := w.Store.Statuses().Put(ctx, o.Type, o.ID, st)
	if errors.Is(err, store.ErrNotFound) {
		return nil // forgotten meanwhile
	}
	return errors.Wrap(err, "report the status")
}

// redacted is c with its message redacted as the command's output is.
func redacted(c store.Condition) store.Condition {
	c.Message = redact.FromEnv().String(c.Message)
	return c
}

func condition(typ, status, reason, message string) store.Condition {
	return store.Condition{Type: typ, Status: status, Reason: reason, Message: message}
}

func progressing(o store.Object) store.ControllerStatus {
	reason, message := "Reconciling", fmt.Sprintf("bringing the stack to generation %d", o.Generation)
	if o.Deleting {
		reason, message = "Finalizing", "destroying the stack"
	}
	return store.ControllerStatus{Conditions: []store.Condition{
		condition("Ready", "Unknown", reason, message), condition("Progressing", "True", reason, message)}}
}

func refused(reason, message string) store.ControllerStatus {
	return store.ControllerStatus{Conditions: []store.Condition{
		condition("Ready", "False", reason, message), condition("Progressing", "False", reason, message)}}
}

// fromUp is the status an operation's outcome says, before status reads the stack: a refusal
// (a change the CLI refuses, a policy's denial, a protected cluster) is Refused and final; a
// failure is Failed and Degraded, retried.
func fromUp(o store.Object, out outcome.Outcome, err error, platform string) store.ControllerStatus {
	var refusedErr *stackstate.RefusedError
	var protected *stackstate.ProtectedError
	var denied *pipeline.PolicyDeniedError
	var problems *deploytarget.ProblemsError
	var existing *createguard.ExistingError
	message := out.Reason
	switch {
	case errors.As(err, &problems):
		message = bodyProblems(problems, platform, o.Type == store.NodePool)
	case err == nil && errors.As(out.Err, &existing):
		message = inTheCloud(o, existing)
	case err != nil:
		message = err.Error()
	case out.Err != nil:
		message = out.Err.Error() // the reason in full: "refused, nothing deployed: spec.region: ..."
	}
	switch {
	case interrupted(out):
		return refused("Interrupted", recovery(o, out.Err))
	case errors.As(out.Err, &refusedErr), errors.As(out.Err, &protected), errors.As(err, &denied), errors.As(err, &problems):
		return refused("Refused", message)
	case out.Status == outcome.Blocked:
		return refused("Refused", message)
	case out.Status == outcome.Done:
		return store.ControllerStatus{Conditions: []store.Condition{
			condition("Ready", "True", "Deployed", out.Reason), condition("Progressing", "False", "Deployed", out.Reason)}}
	}
	return failed(message)
}

// recovery is an Interrupted status's message: what the interrupted operation left, and what
// recovers it, said for a client of the API. The commands name MANIFEST, the object's manifest,
// rather than the worker's copy (gone once the job ends); "run this again" is a PUT.
func recovery(o store.Object, err error) string {
	const file = "MANIFEST"
	var left *stackstate.InterruptedError
	var pending *stackstate.PendingCreatesError
	text := err.Error()
	switch {
	case errors.As(err, &left):
		named := *left
		named.File = file
		text = named.Error()
	case errors.As(err, &pending):
		text = pending.Advice(file)
	}
	noun, path := nounAndPath(o)
	return strings.TrimSuffix(text, ".") + ". " + file + " is a clusterplane manifest of this " + noun + " (" + o.Name +
		", with the spec GET " + path + " returns); run the commands where PULUMI_BACKEND_URL is the service's. " +
		"To run this again, send PUT " + path + " with the same spec and If-Match: its resource_version"
}

// nounAndPath are how a message names the object's type, and its path in the API.
func nounAndPath(o store.Object) (noun, path string) {
	if o.Type == store.NodePool {
		return "node pool", "/api/v1/nodepools/" + o.ID
	}
	return "cluster", "/api/v1/clusters/" + o.ID
}

// inTheCloud is a Refused message for a create the cloud already holds under the object's name
// (a pool made in the console, say). The CLI's own words name a manifest file to adopt and "up
// again", which a client of the API has neither of; and an object's name cannot change. So it
// says what the client can do: free the name in the cloud and send the spec again, use another
// name, or take the cloud's one over with the CLI, which then manages it instead of the API.
func inTheCloud(o store.Object, e *createguard.ExistingError) string {
	noun, path := nounAndPath(o)
	held := "the cloud already holds " + stackstate.DescribeLive(e.Live)
	another := "create this " + noun + " under another name (DELETE " + path + ", which destroys nothing, then POST it again)"
	if e.ManagedBy != "" {
		return held + ", which stack " + e.ManagedBy + " manages, and the API deploys only the stacks it made: nothing was created. " +
			"To go on, " + another + ", or change that stack's manifest instead"
	}
	id := "ID"
	if len(e.Live) == 1 {
		id = e.Live[0].ID
	}
	return held + ", which no stack holds, and a create would make one more: this attempt created nothing. To go on, delete it in the " +
		"cloud and send PUT " + path + " with the same spec and If-Match: its resource_version; or " + another +
		"; or keep the cloud's one and take it over with the CLI, `clusterplane adopt MANIFEST --id " + id + "` (MANIFEST a " +
		"clusterplane manifest of this " + noun + ", with the spec GET " + path + " returns), then DELETE " + path +
		": the CLI manages it from then on, since the API deploys only the stacks it made"
}

// mayBeOwnCreate adds to a refusal of a name the cloud holds, met by a job's later attempt, that
// an earlier attempt may have made it: a create the cloud carried out but answered with an error,
// or not at all, is found so by the next attempt, which cannot tell it from one made elsewhere.
func mayBeOwnCreate(st store.ControllerStatus, out outcome.Outcome) store.ControllerStatus {
	var existing *createguard.ExistingError
	if !errors.As(out.Err, &existing) || existing.ManagedBy != "" {
		return st
	}
	for i, c := range st.Conditions {
		st.Conditions[i].Message = strings.TrimSuffix(c.Message, ".") + ". An earlier attempt of this job failed: a create the " +
			"cloud answered with an error, or not at all, can still have been carried out, and this may be the one it made"
	}
	return st
}

// failed is the status of a failure another run may mend: Ready=False and Degraded, reason
// Failed.
func failed(message string) store.ControllerStatus {
	st := refused("Failed", message)
	st.Conditions = append(st.Conditions, condition("Degraded", "True", "Failed", message))
	return st
}

// bodyProblems are the pipeline's problems of the manifest (the cloud's offer, regions), each
// named as the body wrote the field, without the worker's file.
func bodyProblems(problems *deploytarget.ProblemsError, platform string, pool bool) string {
	lines := make([]string, 0, len(problems.Problems))
	for _, p := range problems.Problems {
		var read *body.ProblemsError
		if errors.As(body.Problems(p, platform, pool), &read) {
			lines = append(lines, read.Error())
			continue
		}
		lines = append(lines, p.Error())
	}
	return strings.Join(lines, "; ")
}

// fromStatus is the status the stack's records say after a successful up: Ready and Drifted as
// `clusterplane status` reports them, and the stack's outputs (secrets left out).
func fromStatus(o store.Object, s *outcome.StackStatus) store.ControllerStatus {
	st := store.ControllerStatus{Metadata: map[string]any{"outputs": s.Outputs}}
	for _, c := range s.Conditions {
		st.Conditions = append(st.Conditions, served(c))
	}
	st.Conditions = append(st.Conditions, condition("Progressing", "False", "Deployed", "the stack is at generation "+fmt.Sprint(o.Generation)),
		condition("Degraded", "False", "Deployed", ""))
	return st
}

// metadata adds the seed's metadata: the platform, the region and the nodes asked for.
func metadata(o store.Object, platform string, m map[string]any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m["platform"] = platform
	b, err := body.Stored(o.Name, o.ClusterID, o.Spec)
	if err != nil {
		return m
	}
	if n, ok := b.Spec.DesiredNodes(); ok {
		m["desired_nodes"] = n
	}
	if region := b.Spec.Region(); region != "" {
		m["region"] = region
	}
	return m
}

// Enqueue is the store's Enqueue through client: the job is inserted in the write's
// transaction.
func Enqueue(client *river.Client[*sql.Tx]) store.Enqueue {
	return func(ctx context.Context, tx *sql.Tx, id string) error {
		_, err := client.InsertTx(ctx, tx, Args{ObjectID: id}, nil)
		return err
	}
}
