package deploy

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
)

// previewing is how Preview, PreviewPlan and CheckPlan preview one stack: the preview, of a
// retarget too, and the judgement of what it found. It holds the stacks it opens, the retry and
// the progress writer of the engine's run, and the steps it calls on: what it would create, what
// the read dropped, the rotation up would carry out instead of a replacement.
type previewing struct {
	stacks   stacks
	retrier  retrier
	pace     *queue.Pacer
	progress progressTo
	creating createguard.Creating
	reading  reading
	rotating rotating
}

// newPreviewing is the deployer's previewing step.
func newPreviewing(d *Deployer) previewing {
	return previewing{stacks: d.stacks(), retrier: d.retrier(), pace: d.Pace, progress: d.Progress,
		creating: createguard.New(d.Backend), reading: newReading(readrepair.CloudLists), rotating: newRotating(d)}
}

// applying is how Up deploys one stack once it holds it open: whether the stack needs the engine
// at all, what it refuses or rotates first, the question at the terminal, and the engine's update.
// Destroy uses its check for creates left pending. It holds the stacks, the retry, the pace and
// the progress writer of the engine's run, and the steps it calls on.
type applying struct {
	stacks     stacks
	retrier    retrier
	pace       *queue.Pacer
	progress   progressTo
	creating   createguard.Creating
	reading    reading
	rotating   rotating
	recovering recovering
	adopting   adopting
}

// newApplying is the deployer's applying step.
func newApplying(d *Deployer) applying {
	return applying{stacks: d.stacks(), retrier: d.retrier(), pace: d.Pace, progress: d.Progress, creating: createguard.New(d.Backend),
		reading: newReading(readrepair.CloudLists), rotating: newRotating(d), recovering: newRecovering(d), adopting: newAdopting(d)}
}

// Deployer runs the operations on targets through a backend. Each operation returns an Outcome;
// none prints anything but the engine's progress, to Progress.
type Deployer struct {
	Backend stackstate.Backend
	// Progress is where a target's engine progress goes; nil (or a nil writer) for none.
	Progress func(t deploytarget.Target) io.Writer
	// RetryWaits are the waits before running again an operation the cloud turned away for now
	// (package retry); nil for retry.DefaultWaits.
	RetryWaits []time.Duration
	// Throttled, when set, is how long the target's cloud asks to be left alone before it takes
	// requests again, 0 when it takes them now (retry.CloudRetryAfter): after an operation failed
	// with a 429, the next attempt waits at least that, up to retry.MaxThrottleWait. nil waits
	// RetryWaits only.
	Throttled func(ctx context.Context, t deploytarget.Target) time.Duration
	// Pace, when set, holds each paced operation (adopt, refresh, drift) until its requests fit
	// its cloud's rate limit (NewPacer).
	Pace *queue.Pacer
	// Say, when set, is told what the user should know once about the whole run (a slower path
	// taken), however many stacks meet it.
	Say func(line string)
	// Scanned, when set, is what the fleet scan found of each stack (by Target.Key): Drift, Preview
	// and Up start no engine for a stack it found unchanged.
	Scanned map[string]Scanned
	// Rotating, when set, is told each phase of a pool's rotation once the stack has recorded it:
	// a rotation runs inside one up, for minutes, and the service shows its phase meanwhile.
	Rotating func(t deploytarget.Target, pool string, s rotation.State)

	said sync.Map // the lines Say was told, each once
}

// unchanged tells a target the fleet scan found unchanged: its manifest and build are the ones
// its last up deployed, and its cloud lists its resource as the state recorded it.
func (d *Deployer) unchanged(t deploytarget.Target) bool {
	return d.Scanned[t.Key()].Unchanged
}

// Unchanged is the outcome of a stack that preview or up leaves alone: the fleet scan found it
// unchanged.
const Unchanged = "unchanged since the last up (manifest, clusterplane build and cloud): not run"

// sayOnce tells Say a line once in the deployer's life.
func (d *Deployer) sayOnce(line string) {
	if _, seen := d.said.LoadOrStore(line, true); !seen && d.Say != nil {
		d.Say(line)
	}
}

// stacks opens and locks stacks through the deployer's backend.
func (d *Deployer) stacks() stacks {
	return stacks{backend: d.Backend}
}

// failed is the outcome of a failure: typed errors that a user can mend keep their type.
func failed(err error) outcome.Outcome {
	var refused *stackstate.RefusedError
	var protected *stackstate.ProtectedError
	switch {
	case errors.As(err, &refused), errors.As(err, &protected):
		return outcome.Refused(err)
	case errors.Is(err, stackstate.ErrCancelled):
		o := outcome.Outcome{Status: outcome.Cancelled, Err: err}
		o.SayReason(outcome.SaysFirst, "cancelled", "")
		return o
	}
	o := outcome.Outcome{Status: outcome.Failed, Err: err}
	o.SayReason(outcome.SaysFirst, "failed", "")
	return o
}

// shareSecrets keeps the secrets of a stack whose program reads another stack (a pool's reads
// its cluster's) under that stack's key, where the backend can (Stack.ShareSecretsWith).
func shareSecrets(ctx context.Context, s stackstate.Stack, t deploytarget.Target) error {
	refs := deploytarget.References(t.Input)
	if len(refs) == 0 {
		return nil
	}
	return s.ShareSecretsWith(ctx, refs[0])
}

// forget removes a stack this operation created when nothing was deployed to it, so that a
// failed preview or adoption leaves no empty stack behind.
func forget(ctx context.Context, s stackstate.Stack, created bool) {
	if created {
		_ = s.Remove(context.WithoutCancel(ctx))
	}
}

// PreviewOptions steer Preview.
type PreviewOptions struct {
	// NoRefresh previews against the stack's state, not reading the cloud first
	// (--refresh=false): what changed in the cloud since the last up is then not shown, though up
	// puts it back.
	NoRefresh bool
}

// Preview previews the target as up would deploy it, the cloud read first (in memory): Blocked
// when the change would replace a resource, when the engine refuses it (a protected cluster), or
// when it changes what the providers cannot carry out from the manifest the stack last deployed;
// Drifted when the cloud differs where no up can put it back.
func (d *Deployer) Preview(ctx context.Context, t deploytarget.Target, opts PreviewOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	if d.unchanged(t) {
		o := outcome.NotRun(outcome.Unchanged, "")
		o.SayReason(outcome.SaysItself, Unchanged, "")
		return o
	}
	// A pool whose cluster is not deployed yet cannot be previewed: its program reads the
	// cluster's stack. In a run that also holds the cluster's manifest, that is the normal first
	// preview of a new fleet, not a failure; up deploys the cluster first.
	if missing := missingReferences(t, d.stacks().exists(ctx)); missing != "" {
		return outcome.Outcome{Status: outcome.Done, Verdict: outcome.NotPreviewed, Reason: "not previewed: it reads stack " + missing + ", not deployed yet " +
			"(up deploys it first when its manifest is given in the same run)"}
	}
	return newPreviewing(d).preview(ctx, t, !opts.NoRefresh)
}

// waitToRead holds a preview that reads the cloud (refresh) until the run's pace lets it, as up's
// read is held: the cloud's reads are what the run is paced for.
func (d previewing) waitToRead(ctx context.Context, t deploytarget.Target, refresh bool) error {
	if !refresh {
		return nil
	}
	return d.pace.Wait(ctx, t)
}

// preview is Preview, reading the cloud first (in memory) when refresh is set.
func (d previewing) preview(ctx context.Context, t deploytarget.Target, refresh bool) outcome.Outcome {
	s, created, err := d.stacks.openOrCreate(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	// A new stack creates its cluster (node pool): as up does, the cloud is asked for one of the
	// name before the engine runs, whose program would read that one as the stack's own.
	var note string
	if created {
		blocked, takeBack, n, err := d.creating.LookBeforeFirstCreate(ctx, t)
		if err != nil || blocked != nil {
			forget(ctx, s, created)
			if err != nil {
				return failed(err)
			}
			return *blocked
		}
		note = createguard.NotChecked(n) + createguard.WouldTakeBack(takeBack)
	}
	if err := d.waitToRead(ctx, t, refresh); err != nil {
		forget(ctx, s, created)
		return failed(err)
	}
	var res stackstate.Result
	err = d.retrier.run(ctx, t, func() (err error) {
		res, err = s.Preview(ctx, stackstate.Options{Progress: d.progress.of(t), Refresh: refresh})
		res.RecordedOnly = runreport.RecordedOnly(t, res)
		return err
	}, nil)
	if err == nil && refresh && !created {
		err = d.reading.previewReads(ctx, t, s, "preview", res)
	}
	if err != nil {
		var protected *stackstate.ProtectedError
		if errors.As(err, &protected) {
			if o, ok := d.rotating.protectedRotation(ctx, t, s, res); ok {
				return o
			}
		}
		forget(ctx, s, created)
		return failed(err)
	}
	// An existing stack that holds no cluster (pool) creates one too (after a destroy): whether up
	// would look first is read before a stack made only for this preview goes again.
	guarded := false
	if !created {
		if guarded, err = d.creating.GuardsCreate(ctx, t, s, res); err != nil {
			return failed(err)
		}
	}
	// A preview changes nothing, not even the backend: a stack made only to preview goes again.
	forget(ctx, s, created)
	o := outcome.Outcome{Status: outcome.Done, Result: &res, Reason: res.Summary()}
	if stop := d.previewRetarget(ctx, t, s, res, o); stop != nil {
		return *stop
	}
	if stop := d.previewJudged(ctx, t, s, res, refresh, &o); stop != nil {
		return *stop
	}
	if o.Status == outcome.Done && guarded {
		blocked, takeBack, n, err := d.creating.LookBeforeFirstCreate(ctx, t)
		switch {
		case err != nil:
			return failed(err)
		case blocked != nil:
			blocked.Result = o.Result
			return *blocked
		}
		note = createguard.NotChecked(n) + createguard.WouldTakeBack(takeBack)
	}
	if o.Status == outcome.Done {
		o.Reason += note
	}
	// What the read found changed in the cloud (or, not read, what the state last recorded of
	// it) is what up would put back, or could not.
	o = fielddrift.PutBack(t, o, true, d.stacks.leftByAdoption(ctx, t, s))
	return o
}

// previewRetarget is the preview of another manifest on the stack (--stack): refused, or with
// Retarget shown as the deletes it is. nil when the manifest is the stack's.
func (d previewing) previewRetarget(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result, o outcome.Outcome) *outcome.Outcome {
	renamed, err := deploytarget.Retargeted(t, stackstate.OutputsOf(res.Previous))
	var retarget *deploytarget.RetargetError
	switch {
	case errors.As(err, &retarget):
		o.Status, o.Reason, o.Err = outcome.Blocked, "refused: another manifest's stack", err
		return &o
	case err != nil:
		o = failed(err)
		return &o
	case !renamed:
		return nil
	}
	own, err := createguard.OwnIDs(ctx, t, s)
	if err != nil {
		o = failed(err)
		return &o
	}
	if blocked, _, err := d.creating.LookBeforeCreate(ctx, t, own...); err != nil {
		o = failed(err)
		return &o
	} else if blocked != nil {
		blocked.Result = o.Result
		return blocked
	}
	o.Status, o.Reason = outcome.Blocked, "retarget: "+res.Summary()+" (what the stack deployed is deleted, the manifest's created)"
	return &o
}

// previewJudged says in o what up would refuse of the preview res, or would not carry out
// without a yes (a replacement), and the pool rotations up carries out where the engine
// replaces. stop is the outcome when the preview ends there.
func (d previewing) previewJudged(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result, refresh bool, o *outcome.Outcome) (stop *outcome.Outcome) {
	refused, err := t.Refused(stackstate.OutputsOf(res.Previous))
	refused = fielddrift.NotReplacedByEngine(refused, res)
	if refresh {
		refused = fielddrift.HeldByCloud(refused, t, res)
	}
	switch {
	case err != nil:
		f := failed(err)
		return &f
	case len(refused) > 0:
		o.Refuse(&stackstate.RefusedError{Changes: refused})
	case res.Replaces():
		// Said as up's refusal says it: the ways out are the rollout block and --allow-replace.
		o.Status, o.Reason = outcome.Blocked, "replaces: "+res.Summary()
		if r := refusedReplacement(t, res, nil); r != nil && rotationrun.RotatedInstead(t, res) == nil {
			o.Err = r.Err
		}
	}
	// A rotation the manifest allows is what the engine's replacement stands in for.
	blocked, carried, err := rotationrun.RotationGate(t, stackstate.OutputsOf(res.Previous))
	switch {
	case err != nil:
		f := failed(err)
		return &f
	case blocked != nil && len(refused) == 0:
		o.Status, o.Reason, o.Err = blocked.Status, blocked.Reason, blocked.Err
	case len(carried) > 0 && len(refused) == 0:
		rotationrun.PreviewRotation(o, t, carried)
		if o.Status != outcome.Done {
			return nil
		}
		if taken, err := d.rotating.surgeTaken(ctx, t, s, carried); err != nil {
			f := failed(err)
			return &f
		} else if taken != nil {
			taken.Result = o.Result
			return taken
		}
		if w := d.progress.of(t); w != nil {
			// The engine's own lines above say replace; what up does is not that.
			fmt.Fprintf(w, "The engine's plan above replaces the %s; up does not: it rotates the pool (%s).\n",
				rotationrun.ReplacedByRotation(carried), rotationrun.DescribeRotations(carried))
		}
	}
	return nil
}

// UpOptions steer Up.
type UpOptions struct {
	// Yes deploys without a question, but never a replacement AllowReplace does not name.
	Yes bool
	// AllowReplace names the manifests whose resources the up may replace (--allow-replace): a
	// change that replaces any other's is refused (exit 3) before anything changes, with Yes or
	// a yes at the terminal alike (package replace).
	AllowReplace replace.Allowed
	// Interactive tells that someone answers Confirm. Without Yes, any change is then asked about
	// (after the plan) and deploys on yes, as pulumi up and terraform apply ask; without
	// Interactive (a pipe, CI) no change deploys without Yes.
	Interactive bool
	// Confirm shows the previewed change and asks whether to deploy it; nil answers no.
	Confirm func(t deploytarget.Target, preview stackstate.Result) bool
	// PreviewReplacements, with Yes, has the engine's plan tell a replacement, as on a terminal,
	// not the effects table alone: a stack that holds resources is previewed before the up, and
	// what the plan replaces is refused though the table calls the change in place. A stack that
	// holds nothing has nothing to replace and is not previewed. serve's worker sets it, whose
	// answer is always yes but whose API promises the engine's word on a replacement.
	PreviewReplacements bool
	// NoRefresh trusts the stack's state where the manifest did not change since its last up
	// (--refresh=false): the cloud is not read first, so a change made in the cloud since stays
	// unseen and unmended. By default every up reads the cloud first (one read of each resource,
	// kinds.Cost.Refresh), puts back what drifted and says what it put back.
	NoRefresh bool
	// AllowRefused sends a refused change to the engine anyway. The clusterplane command never
	// sets it; the tests that hold the effects table against the real providers do.
	AllowRefused bool
	// locked tells that Up holds the stack's lock (Backend.LockStack), without which no rotation runs.
	locked bool
	// Planned, when set, is the stack's part of a saved plan, checked before (CheckPlan): the up
	// reads the cloud first, as the check's preview did, and goes only while no other update has
	// landed on the stack since the plan.
	Planned *outcome.PlannedStack
	// Message, if set, is recorded with the update in the stack's history: a way in that marks
	// the updates it makes (serve) finds them there again.
	Message string
}

// The reasons of a change not deployed for want of a yes: nobody could be asked (no terminal),
// or the person asked said no. Only the first is mended by --yes.
const (
	NotConfirmedNoTerminal = "not confirmed (no terminal to ask on: use --yes)"
	NotConfirmedAnswered   = "not confirmed (answered no)"
)

// unconfirmed asks, when someone can answer, and says why a change is not deployed: "" when the
// answer is yes.
func unconfirmed(opts UpOptions, ask func() bool) string {
	if !opts.Interactive || opts.Confirm == nil {
		return NotConfirmedNoTerminal
	}
	if !ask() {
		return NotConfirmedAnswered
	}
	return ""
}

// Up deploys the target after the checks that keep a deployment from doing what was not meant:
// no creates left pending by an interrupted up, no refused change, and without Yes a preview whose
// replacements (and, without a terminal, any change) are confirmed first.
func (d *Deployer) Up(ctx context.Context, t deploytarget.Target, opts UpOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	if d.unchanged(t) {
		o := outcome.NotRun(outcome.Unchanged, "")
		o.SayReason(outcome.SaysItself, Unchanged, "")
		return o
	}
	if missing := missingReferences(t, d.stacks().exists(ctx)); missing != "" {
		return failed(errors.Errorf("it reads stack %s, which is not deployed: deploy it first, or give its manifest "+
			"in the same run (up deploys it first)", missing))
	}
	// What it creates carries the stack's mark, a rotation's surge pool too.
	t = t.MarkedIn(d.Backend)
	// Held to the end: a rotation's steps and the engine's up are one operation on the stack.
	unlock, locked, err := d.stacks().lockStack(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer unlock()
	opts.locked = locked
	s, created, err := d.stacks().openOrCreate(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	if err := d.clearDeadLock(ctx, t, s, locked); err != nil {
		return failed(err)
	}
	up := newApplying(d)
	st, stop := up.settled(ctx, t, s, false)
	if stop != nil {
		return *stop
	}
	if stop := up.retargetLooked(ctx, t, st); stop != nil {
		return *stop
	}
	if !opts.AllowRefused {
		stop, did, now := up.refuseOrRotate(ctx, t, s, st, opts)
		if stop != nil {
			return *stop
		}
		if did != "" {
			// What the rotation did leads up's report, whatever the engine does next.
			defer func() {
				if out.Reason != "" {
					did += "; " + out.Reason
				}
				out.SayReason(outcome.SaysNot, did, "")
			}()
			st = now
		}
	}
	return up.upEngine(ctx, t, s, st, created, opts)
}

// settled reads the stack's state, and stops an operation that would change the stack while an
// interrupted up left creates pending: up and destroy both start so. An up is refused (exit 3):
// nothing failed, and another create could make one more of what the killed one may have made.
// A destroy fails, so that the stacks waiting for it (a cluster under its pools) are skipped,
// not deleted: a refused destroy would let them go on.
func (d applying) settled(ctx context.Context, t deploytarget.Target, s stackstate.Stack, destroying bool) (stackstate.State, *outcome.Outcome) {
	st, err := s.State(ctx)
	if err != nil {
		o := failed(err)
		return st, &o
	}
	if len(st.PendingCreates()) > 0 {
		pending := d.recovering.pendingCreates(ctx, t, s, st, nil)
		o := outcome.Refused(pending)
		if destroying {
			o = failed(pending)
		}
		return st, &o
	}
	return st, nil
}

// retargetLooked refuses another manifest on the stack (--stack) unless Retarget says it is
// meant; then the cloud is asked for the new name first, as for any create.
func (d applying) retargetLooked(ctx context.Context, t deploytarget.Target, st stackstate.State) *outcome.Outcome {
	renamed, err := deploytarget.Retargeted(t, st.Outputs())
	var retarget *deploytarget.RetargetError
	if errors.As(err, &retarget) {
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "refused: another manifest's stack", Err: err}
	} else if err != nil {
		o := failed(err)
		return &o
	}
	if !renamed {
		return nil
	}
	own, _ := st.IDs(deploytarget.GuardedType(t.Effects))
	blocked, _, err := d.creating.LookBeforeCreate(ctx, t, own...)
	if err != nil {
		o := failed(err)
		return &o
	}
	return blocked
}

// refuseOrRotate refuses the changes the providers cannot carry out (asking the engine, and
// the cloud, whether each is already so), and carries out the pool rotations the manifest asks
// for before the engine runs, which then finds the new pool. did says what the rotation did,
// and now is the state it left ("" and st without one).
func (d applying) refuseOrRotate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, opts UpOptions) (stop *outcome.Outcome, did string, now stackstate.State) {
	refused, err := t.Refused(st.Outputs())
	if err != nil {
		o := failed(err)
		return &o, "", st
	}
	if slices.ContainsFunc(refused, fielddrift.OnPaper) {
		// Only the engine can tell whether the cloud already has the value: ask it.
		if res, err := s.Preview(ctx, stackstate.Options{}); err == nil {
			refused = fielddrift.NotReplacedByEngine(refused, res)
		}
	}
	if slices.ContainsFunc(refused, fielddrift.NotApplied) && !opts.NoRefresh {
		// The cloud may hold the value already: read it to know.
		if res, err := s.Preview(ctx, stackstate.Options{Refresh: true}); err == nil {
			refused = fielddrift.HeldByCloud(refused, t, res)
		}
	}
	if len(refused) > 0 {
		o := outcome.Refused(&stackstate.RefusedError{Changes: refused})
		return &o, "", st
	}
	blocked, _, err := rotationrun.RotationGate(t, st.Outputs())
	if err != nil {
		o := failed(err)
		return &o, "", st
	}
	if blocked != nil {
		return blocked, "", st
	}
	if stop, did = d.rotating.rotateFirst(ctx, t, s, st, opts); stop != nil || did == "" {
		return stop, did, st
	}
	// The rotation rewrote the state (its record, the new pool): read it again. Without one,
	// rotateFirst wrote nothing, and the state read before stands.
	if now, err = s.State(ctx); err != nil {
		o := failed(err)
		return &o, did, st
	}
	return nil, did, now
}

// upEngine is the engine's part of Up, once the checks of the stack passed: the guard of what
// the cloud holds under the names it creates, the preview confirmed, and the engine's up.
func (d applying) upEngine(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, created bool, opts UpOptions) outcome.Outcome {
	guard, blocked, err := d.creating.GuardCreate(ctx, t, s, st)
	if err != nil || blocked != nil {
		forget(ctx, s, created)
		if err != nil {
			// Not knowing whether the cloud holds one, nothing is created.
			return failed(err)
		}
		return *blocked
	}
	if guard.TakeBack != nil {
		return d.takeBack(ctx, t, s, created, *guard.TakeBack, opts)
	}
	// The cloud is read first (in memory for the question, into the state for the up) unless the
	// caller trusts the state of an unchanged manifest. A manifest the stack has not deployed yet,
	// after a failed up among others, is always deployed against what the cloud holds: a failed
	// update may have left the state believing it was done (a bridged provider records the new
	// inputs of an update that failed at the cloud), and an up that trusted it would report done
	// while the cloud never changed.
	refresh := !opts.NoRefresh || stackstate.StringOutput(st.Outputs(), deploytarget.GenerationOutput) != deploytarget.Generation(t.Input) || opts.Planned != nil
	if refresh {
		if err := d.pace.Wait(ctx, t); err != nil {
			forget(ctx, s, created)
			return failed(err)
		}
	}
	adopted := d.stacks.leftByAdoption(ctx, t, s)() // read before this up becomes the last update
	if stop := d.confirmed(ctx, t, s, st, refresh, adopted, opts); stop != nil {
		// Nothing deployed: a stack made for this up goes again, as after a preview.
		forget(ctx, s, created)
		return *stop
	}
	var res stackstate.Result
	var left *outcome.Outcome
	var takeBack *kinds.Live
	reads := d.reading.guardReads(t, s, "up", st)
	err = d.retrier.run(ctx, t, func() (err error) {
		res, err = s.Up(ctx, stackstate.Options{Progress: d.progress.of(t), Refresh: refresh, Message: opts.Message})
		res.RecordedOnly, res.Refreshed = runreport.RecordedOnly(t, res), refresh
		if refresh {
			// A read that took a cloud's error for a deletion must not cost the stack the resource.
			err = reads.check(ctx, res, err)
		}
		return err
	}, func(err error) bool {
		// Another attempt is made only when this one left nothing: else it would be refused. What
		// it left of the stack's own is taken back below, and the up made again after it.
		o := failed(err)
		o.Result = &res
		if o, takeBack = guard.Failed(ctx, o); len(o.Unmanaged) > 0 {
			left = &o
		}
		return left == nil && takeBack == nil
	})
	if lists := runlist.Of(ctx); lists != nil && res.Creates() {
		// What this up made is in no list of the account made before it: the run lists again
		// at its next look-up. A create that failed was forgotten already, by the guard's look
		// for what it left (Guard.Failed).
		lists.Forget()
	}
	if left != nil {
		return *left
	}
	if err != nil {
		o := failed(err)
		o.Result = &res
		if takeBack == nil {
			o, takeBack = guard.Failed(ctx, o)
		}
		if takeBack != nil {
			// This up was confirmed (or --yes) before its engine ran: the up after the take-back
			// is the same up.
			opts.Yes = true
			return d.takeBack(ctx, t, s, false, *takeBack, opts)
		}
		return o
	}
	return guard.Done(fielddrift.PutBack(t, outcome.Outcome{Status: outcome.Done, Result: &res, Reason: res.Summary()}, false, func() []string { return adopted }))
}

// takeBack takes into the stack what its own earlier create made (l, which carries the stack's
// mark: createguard), as adopt imports, and runs the up again: the engine then finds the cluster
// (node pool) held and creates none. A create whose answer was lost, or whose read after it
// failed, so ends with the one the cloud made recorded, and no user runs adopt for it.
// created says that this up made the stack: it goes again when the take-back fails, as a refused
// up's does.
func (d applying) takeBack(ctx context.Context, t deploytarget.Target, s stackstate.Stack, created bool, l kinds.Live, opts UpOptions) outcome.Outcome {
	if !opts.Yes {
		// The take-back writes the stack before any question could be asked of the up it leads
		// to: it is made only when the up is confirmed beforehand.
		forget(ctx, s, created)
		return outcome.Outcome{Status: outcome.Blocked, Reason: createguard.TakeBackUnconfirmed(l)}
	}
	said := createguard.TakenBack(l)
	if o := d.adopting.adopt(ctx, t, l.ID, AdoptOptions{}); o.Status != outcome.Done {
		forget(ctx, s, created)
		o.SayReason(outcome.SaysNot, "could not take back "+stackstate.DescribeLive([]kinds.Live{l})+
			", which an earlier create of this stack made: "+o.Reason, "")
		o.Unmanaged = append(o.Unmanaged, l)
		return o
	}
	opts.Planned = nil // the adoption is a new update, which a saved plan could not know of
	st, err := s.State(ctx)
	if err != nil {
		return failed(errors.Wrap(err, said+"; the up after it could not read the stack"))
	}
	if _, held := st.IDs(deploytarget.GuardedType(t.Effects)); !held {
		return failed(errors.Errorf("%s, yet the stack's state does not hold it", said))
	}
	out := d.upEngine(ctx, t, s, st, false, opts)
	if out.Reason != "" {
		said += "; " + out.Reason
	}
	out.SayReason(outcome.SaysNot, said, "")
	return out
}

// confirmed stops an up, before the engine changes anything, whose change replaces what the run
// did not name (AllowReplace), whose preview is not confirmed (without Yes), or whose plan an
// update landing since has moved (Planned): the plan was checked before any stack changed, and
// this catches what landed since.
func (d applying) confirmed(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, refresh bool, adopted []string, opts UpOptions) *outcome.Outcome {
	if opts.Yes && (!opts.PreviewReplacements || len(st.Resources()) == 0) {
		if stop := d.unaskedReplacement(ctx, t, s, st, refresh, nil, opts); stop != nil {
			return stop
		}
	} else {
		preview, err := s.Preview(ctx, stackstate.Options{Refresh: refresh})
		if err == nil && refresh {
			err = d.reading.previewReads(ctx, t, s, "up", preview)
		}
		if err != nil {
			o := failed(err)
			return &o
		}
		preview.RecordedOnly, preview.LeftByAdoption = runreport.RecordedOnly(t, preview), adopted
		// The replacement is refused before the question: a yes does not stand for it either.
		if stop := d.unaskedReplacement(ctx, t, s, st, refresh, &preview, opts); stop != nil {
			return stop
		}
		if preview.Changed() != "" && !opts.Yes {
			if reason := unconfirmed(opts, func() bool { return opts.Confirm(t, preview) }); reason != "" {
				return &outcome.Outcome{Status: outcome.Blocked, Reason: reason, Result: &preview}
			}
		}
	}
	if opts.Planned == nil {
		return nil
	}
	last, err := s.LastUpdate(ctx)
	if err != nil {
		o := failed(err)
		return &o
	}
	if now := savedplan.PlannedUpdate(last); !savedplan.SameUpdate(now, opts.Planned.LastUpdate) {
		o := outcome.Refused(&savedplan.PlanMovedError{Stack: t.Key(), Moved: []string{
			fmt.Sprintf("another update landed on the stack since the plan: its last is %s, the plan saw %s", now, opts.Planned.LastUpdate)}})
		return &o
	}
	return nil
}

// RefreshOptions steer Refresh.
type RefreshOptions struct {
	// ImportPendingCreates are the cloud ids, [URN=]ID, of resources an interrupted up was
	// creating, recorded in the state before the refresh.
	ImportPendingCreates []string
	// ClearPendingCreates forgets them instead: the cloud has none.
	ClearPendingCreates bool
}

// Refresh reads the target's resources back from the cloud into its stack.
func (d *Deployer) Refresh(ctx context.Context, t deploytarget.Target, opts RefreshOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	if err := d.Pace.Wait(ctx, t); err != nil {
		return failed(err)
	}
	// A refresh rewrites the state a rotation under way edits between its steps.
	unlock, locked, err := d.stacks().lockStack(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer unlock()
	s, err := d.stacks().open(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	if err := d.clearDeadLock(ctx, t, s, locked); err != nil {
		return failed(err)
	}
	if len(opts.ImportPendingCreates) > 0 {
		st, err := s.State(ctx)
		if err == nil {
			err = stackstate.ImportPending(ctx, s, st, opts.ImportPendingCreates)
		}
		if err != nil {
			return failed(err)
		}
	}
	var res stackstate.Result
	err = d.retrier().run(ctx, t, func() (err error) {
		res, err = newReading(readrepair.CloudLists).refreshGuarded(ctx, t, s, "refresh", stackstate.Options{Progress: progressTo(d.Progress).of(t), ClearPendingCreates: opts.ClearPendingCreates})
		return err
	}, nil)
	if err != nil {
		return failed(err)
	}
	return outcome.Outcome{Status: outcome.Done, Result: &res, Reason: "refreshed " + t.Key()}
}

// Drift reads the target's resources from the cloud, in memory only, and previews the manifest
// against them: Blocked, with the manifest fields the cloud disagrees on, when refresh and then up
// would change something. What the cloud owns by design (an autoscaled node count, auto-upgrade
// patches) is ignored by the modules and so is no drift.
func (d *Deployer) Drift(ctx context.Context, t deploytarget.Target) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	defer d.withUnrecorded(t, &out)
	if d.unchanged(t) {
		return outcome.NotRun(outcome.Unchanged, "no drift: "+d.Scanned[t.Key()].Why)
	}
	if err := d.Pace.Wait(ctx, t); err != nil {
		return failed(err)
	}
	s, asDeployed, err := d.stacks().openAsDeployed(ctx, t)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return d.notDeployed(t)
	}
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		return failed(err)
	}
	if len(st.Resources()) == 0 && len(st.PendingCreates()) == 0 {
		// Destroyed: the cloud holds nothing of it to differ, though up would create it all.
		return d.notDeployed(t)
	}
	outputs := st.Outputs()
	since := fielddrift.SinceOf(t, outputs)
	f, err := d.findDrift(ctx, t, s, asDeployed, outputs, since, "drift", progressTo(d.Progress).of(t), true)
	if err != nil {
		o, ok := fielddrift.PreviewFailed(err)
		if !ok {
			return failed(err)
		}
		o.Pending = fielddrift.ManifestPending(t, since)
		return o
	}
	o := outcome.Outcome{Status: outcome.Done, Result: &f.res, Reason: "no drift"}
	if f.reason != "" {
		o.Status, o.Reason, o.Drift = outcome.Drifted, f.reason, f.drifted
	}
	if o.Pending = f.pending; len(f.pending) > 0 {
		if o.Status == outcome.Done {
			// "no drift; pending: ...": the pending clause says the row's word.
			o.SayReason(outcome.SaysItself, o.Reason+"; "+fielddrift.PendingSaid(t, since, f.pending), "")
		} else {
			o.AddToReason("; ", fielddrift.PendingSaid(t, since, f.pending))
		}
	}
	// A pool a rotation left behind is no field of the manifest: the engine never sees it.
	orphans, err := d.orphans(ctx, t, st)
	if err != nil {
		return failed(err)
	}
	if len(orphans) > 0 {
		o.Orphans = orphans
		if o.Status == outcome.Drifted {
			o.AddToReason("; ", describeOrphans(orphans))
		} else {
			o.Status = outcome.Drifted
			o.SayReason(outcome.SaysNot, describeOrphans(orphans), "")
		}
	}
	return o
}

// DestroyOptions steer Destroy.
type DestroyOptions struct {
	// Remove deletes the stack from the backend once its resources are gone.
	Remove bool
	// Confirm, when set, is shown the resources the destroy would delete ("type name") and asked
	// whether to go on; it is not asked when there are none. Nil destroys unasked (--yes).
	Confirm func(t deploytarget.Target, resources []string) bool
}

// Destroy deletes the target's resources. A protected cluster is refused before the engine runs,
// so that the stack's history keeps its last update; a stack never deployed has nothing to destroy.
func (d *Deployer) Destroy(ctx context.Context, t deploytarget.Target, opts DestroyOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	// A destroy while an up rotates the stack's pool would leave that up's surge pool unrecorded.
	unlock, locked, err := d.stacks().lockStack(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer unlock()
	s, err := d.stacks().open(ctx, t)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		o := outcome.Outcome{Status: outcome.Done, Verdict: outcome.HoldsNothing}
		o.SayReason(outcome.SaysFirst, "not deployed: ", "nothing to destroy")
		return o
	}
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	if err := d.clearDeadLock(ctx, t, s, locked); err != nil {
		return failed(err)
	}
	st, stop := newApplying(d).settled(ctx, t, s, true)
	if stop != nil {
		return *stop
	}
	if protected := st.Protected(); len(protected) > 0 {
		return failed(&stackstate.ProtectedError{Resources: protected})
	}
	if deleted := st.Resources(); opts.Confirm != nil && len(deleted) > 0 && !opts.Confirm(t, deleted) {
		return outcome.Outcome{Status: outcome.Blocked, Reason: NotConfirmedAnswered}
	}
	var res stackstate.Result
	err = d.retrier().run(ctx, t, func() (err error) {
		res, err = s.Destroy(ctx, stackstate.Options{Progress: progressTo(d.Progress).of(t)})
		return err
	}, nil)
	if err != nil {
		return failed(err)
	}
	o := outcome.Outcome{Status: outcome.Done, Result: &res}
	o.SayReason(outcome.SaysFirst, "destroyed", "")
	if opts.Remove {
		if err := s.Remove(ctx); err != nil {
			return failed(errors.Wrap(err, "remove the stack"))
		}
		o.SayReason(outcome.SaysFirst, "destroyed, ", "stack removed")
	}
	return o
}

// Kubeconfig reads a deployed cluster's kubeconfig from its stack's outputs: a DigitalOcean
// cluster's kubeconfig, a Civo cluster's kubeconfig_b64 decoded.
func (d *Deployer) Kubeconfig(ctx context.Context, t deploytarget.Target) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	s, err := d.stacks().open(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	outputs, err := s.Outputs(ctx)
	if err != nil {
		return failed(err)
	}
	if o, ok := outputs["kubeconfig"]; ok {
		text, _ := o.Value.(string)
		return outcome.Outcome{Status: outcome.Done, Kubeconfig: []byte(text), Reason: "kubeconfig"}
	}
	if o, ok := outputs["kubeconfig_b64"]; ok {
		text, _ := o.Value.(string)
		data, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return failed(errors.New("the stack's kubeconfig_b64 is not base64"))
		}
		return outcome.Outcome{Status: outcome.Done, Kubeconfig: data, Reason: "kubeconfig"}
	}
	return failed(errors.Errorf("a %s has no kubeconfig", t.Name))
}
