package deploy

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// rotating is how up carries out a pool rotation (pkg/change/rotation plans it): it decides
// whether a rotation may run, runs it under the stack's lock, rolls a stopped one back, and takes
// the surge pool it left. It holds what a rotation reaches outside the stack it is given.
type rotating struct {
	// progress is where the rotation's lines and the refresh after it go.
	progress progressTo
	// told is Deployer.Rotating: told each phase once the stack recorded it; nil for no one.
	told func(t deploytarget.Target, pool string, s rotation.State)
	// resolve reads the references of the manifest (its cluster's id) from the stacks they name.
	resolve kinds.Resolve
	// reading checks the refresh that points the stack at the new pool.
	reading reading
}

// newRotating is the deployer's rotating step.
func newRotating(d *Deployer) rotating {
	return rotating{progress: d.Progress, told: d.Rotating, resolve: createguard.New(d.Backend).Resolve, reading: newReading(readrepair.CloudLists)}
}

// rotateFirst carries out, before the engine runs, the rotation the manifest asks for (or the
// one a stopped up recorded): the pools changed through the cloud's API and the cluster's nodes
// drained, then the stack's state pointed at the new pool and refreshed, so that the engine's up
// that follows changes the pool in place at most, never replaces it. stop is nil when there is
// nothing to rotate or the rotation is done (or rolled back), and did then says which, for up's
// report (the progress lines are not printed with --quiet); else stop is the outcome to return.
func (d rotating) rotateFirst(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, opts UpOptions) (stop *outcome.Outcome, did string) {
	rotations, err := rotationrun.Rotations(t, st.Outputs())
	if err != nil {
		o := failed(err)
		return &o, ""
	}
	doable, _ := rotationrun.CarriedOut(t, rotations)
	rec, err := rotationrun.RecordedRotation(st.Outputs())
	if err != nil {
		o := failed(err)
		return &o, ""
	}
	ids, _ := st.IDs(deploytarget.GuardedType(t.Effects))
	// self is the id of the stack's own cluster or pool, as the kind's Rotate asks it.
	self := ""
	if len(ids) == 1 {
		self = ids[0]
	}
	switch {
	case len(doable) == 0:
		return d.rollBackStopped(ctx, t, s, self, rec, opts)
	case len(doable) > 1:
		o := failed(errors.Errorf("the manifest asks for %d rotations at once; up carries out one a stack", len(doable)))
		return &o, ""
	}
	if stop := d.rotationAllowed(ctx, t, s, st, doable, rec, opts); stop != nil {
		return stop, ""
	}
	return d.rotate(ctx, t, s, doable[0], rec, ids)
}

// rollBackStopped is rotateFirst when the manifest asks for no rotation: a rotation a stopped up
// recorded before its drain is given up (the manifest is back to the old pool), one past its
// drain is refused, and without one there is nothing to do.
func (d rotating) rollBackStopped(ctx context.Context, t deploytarget.Target, s stackstate.Stack, self string, rec *rotationrun.RotationRecord, opts UpOptions) (stop *outcome.Outcome, did string) {
	if rec == nil || rec.Phase == rotation.Done {
		return nil, ""
	}
	if rec.Phase == rotation.Drained || rec.Phase == rotation.OldDeleted || rec.Hop > 0 || t.Rotate == nil {
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "rotation under way", Err: errors.Errorf(
			"a rotation of pool %s stopped after phase %q, past its drain, and the manifest no longer asks for it: up again "+
				"with the manifest that started it finishes it", rec.Pool, rec.Phase)}, ""
	}
	if !opts.locked {
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "rotation needs the stack's lock", Err: errors.Errorf(
			"a rotation of pool %s is to be rolled back, and the backend cannot hold the stack's lock across its steps: "+
				"nothing was rolled back. Roll back from a file or PostgreSQL backend", rec.Pool)}, ""
	}
	// The manifest is back to the old pool before it was drained: the rotation is given up.
	if err := d.rollBack(ctx, t, s, self, rec); err != nil {
		return &outcome.Outcome{Status: outcome.Failed, Reason: "rotation stopped", Err: &rotationrun.RotationStoppedError{Err: err}}, ""
	}
	return nil, fmt.Sprintf("rotation of pool %s rolled back (its surge pool deleted, the old pool kept)", rec.Pool)
}

// rotationAllowed stops the one rotation the manifest asks for before anything of it is made: a
// new one beside a change the engine would still replace, one not confirmed, one the backend
// cannot lock the stack for.
func (d rotating) rotationAllowed(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, doable []rotation.Rotation, rec *rotationrun.RotationRecord, opts UpOptions) *outcome.Outcome {
	r := doable[0]
	if rec == nil {
		// A rotation stands in for the replacement of its pool (or, through the default pool, of the
		// cluster) only: another change that replaces would still be made by the engine after it,
		// the rotation's work lost with what it replaces.
		replaced, err := rotationrun.ReplacedBesides(t, st.Outputs())
		if err != nil {
			o := failed(err)
			return &o
		}
		if len(replaced) > 0 {
			return &outcome.Outcome{Status: outcome.Blocked, Reason: "replaces: " + strings.Join(replaced, ", "), Err: errors.Errorf(
				"the manifest asks for a rotation of pool %s and also changes %s, which the engine would still replace: "+
					"nothing was rotated; deploy one change at a time", r.Name, strings.Join(replaced, ", "))}
		}
	}
	if !opts.Yes {
		preview, err := s.Preview(ctx, stackstate.Options{})
		if err != nil {
			o := failed(err)
			return &o
		}
		if reason := unconfirmed(opts, func() bool { return opts.Confirm(t, preview) }); reason != "" {
			return &outcome.Outcome{Status: outcome.Blocked, Reason: reason + ": rotation " + rotationrun.DescribeRotations(doable), Result: &preview}
		}
	}
	if !opts.locked {
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "rotation needs the stack's lock", Err: errors.Errorf(
			"the manifest asks for a rotation of pool %s, and the backend cannot hold the stack's lock across its steps "+
				"(a rotation runs only under it, so that two runs never rotate one pool twice): nothing was rotated. "+
				"Rotate from a file or PostgreSQL backend", r.Name)}
	}
	return nil
}

// rotate carries out the rotation r (resumed from rec, when a stopped up recorded it), then
// points the stack at the new pool (rotated). ids are the stack's own clusters or pools.
func (d rotating) rotate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, r rotation.Rotation, rec *rotationrun.RotationRecord, ids []string) (stop *outcome.Outcome, did string) {
	self := ""
	if len(ids) == 1 {
		self = ids[0]
	}
	progress := d.progress.of(t)
	run, err := d.rotator(ctx, t, self, r.Name, progress, func(ctx context.Context, state rotation.State) error {
		return rotationrun.RecordRotation(ctx, s, &rotationrun.RotationRecord{Pool: rec.Pool, State: state})
	})
	if err != nil {
		o := failed(errors.Wrapf(err, "ready the rotation of pool %s", r.Name))
		return &o, ""
	}
	if rec == nil {
		old := ""
		if run.kind.OldPool != nil {
			// A pool inside the stack's resource (a cluster's default pool): the cloud says which.
			if old, err = run.kind.OldPool(ctx); err != nil {
				o := failed(errors.Wrapf(err, "rotation of pool %s: find the pool", r.Name))
				return &o, ""
			}
		} else if old = self; len(ids) != 1 || old == "" {
			o := failed(errors.Errorf("rotation of pool %s: the stack holds %d pools of type %s, want one", r.Name, len(ids), deploytarget.GuardedType(t.Effects)))
			return &o, ""
		}
		rec = &rotationrun.RotationRecord{Pool: r.Name, State: rotation.State{OldID: old}}
	}
	if rec.ID == "" {
		// A new rotation, or one an older clusterplane recorded without an id: the pools it
		// creates from here carry this id's mark.
		rec.ID = rotation.NewID()
	}
	plan := rotationrun.PlanOf(r, rec.Pool, run.kind)
	plan.Mark = rotation.NewMark(t.Key(), rec.ID).String()
	plan.Drain.Progress = run.say
	if _, err := drain.PoolSelector(run.kind.NodeLabels, plan.Old, rec.OldID); err != nil {
		o := failed(err)
		return &o, ""
	}
	final, err := run.Run(ctx, plan, rec.State)
	var foreign *rotation.ForeignPoolError
	if errors.As(err, &foreign) {
		// Someone else's pool has the surge name: up refuses, as it refuses any change it must
		// not make unasked, and nothing of the rotation was made or recorded.
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "refused: surge pool name taken", Err: err}, ""
	}
	if err != nil {
		return &outcome.Outcome{Status: outcome.Failed, Reason: "rotation stopped", Err: &rotationrun.RotationStoppedError{Err: err}}, ""
	}
	return d.rotated(ctx, t, s, r, run, final.SurgeID)
}

// rotated points the stack at the new pool once the rotation r is done: the state takes the new
// pool's id, and a refresh reads it (its new size, its name), so that the engine's diff finds the
// manifest met, not a pool to replace. A pool inside the stack's resource (a cluster's default
// pool) keeps the resource's id: the refresh reads the new pool into it, found by the cloud as the
// old one was.
func (d rotating) rotated(ctx context.Context, t deploytarget.Target, s stackstate.Stack, r rotation.Rotation, run *rotationRun, surge string) (stop *outcome.Outcome, did string) {
	if run.kind.OldPool == nil {
		id := surge
		if run.kind.StateID != nil {
			id = run.kind.StateID(id)
		}
		if err := rotationrun.PointPoolAt(ctx, s, deploytarget.GuardedType(t.Effects), id); err != nil {
			o := failed(errors.Wrapf(err, "rotation of pool %s done; point the stack at the new pool %s", r.Name, surge))
			return &o, ""
		}
	}
	if _, err := d.reading.refreshGuarded(ctx, t, s, "up", stackstate.Options{Progress: d.progress.of(t)}); err != nil {
		o := failed(errors.Wrapf(err, "rotation of pool %s done; refresh the stack", r.Name))
		return &o, ""
	}
	check, err := s.Preview(ctx, stackstate.Options{})
	if err != nil {
		o := failed(err)
		return &o, ""
	}
	if check.Replaces() {
		return &outcome.Outcome{Status: outcome.Blocked, Reason: "replaces: " + check.Summary(), Result: &check, Err: errors.Errorf(
			"rotation of pool %s done, but the engine would still replace %s; nothing more was deployed", r.Name, check.Summary())}, ""
	}
	return nil, fmt.Sprintf("pool %s rotated (%s)", r.Name, strings.Join(r.Changes, ", "))
}

// rollBack gives up a rotation stopped before its drain ended, when the manifest no longer asks
// for it: the old pool's nodes uncordoned (if they were cordoned), the surge pool deleted, and the
// record dropped, so that up goes on with the old pool as the stack holds it.
func (d rotating) rollBack(ctx context.Context, t deploytarget.Target, s stackstate.Stack, self string, rec *rotationrun.RotationRecord) error {
	// The roll-back records that it is under way before it deletes anything (so that a kill
	// during it is known as one); its end is the record's removal, below.
	run, err := d.rotator(ctx, t, self, rec.Pool, d.progress.of(t), func(ctx context.Context, state rotation.State) error {
		return rotationrun.RecordRotation(ctx, s, &rotationrun.RotationRecord{Pool: rec.Pool, State: state})
	})
	if err != nil {
		return errors.Wrapf(err, "ready the roll-back of pool %s's rotation", rec.Pool)
	}
	plan := rotation.Settings{Old: rec.Pool, Surge: rec.Pool + rotation.SurgeSuffix}
	if rec.ID != "" {
		plan.Mark = rotation.NewMark(t.Key(), rec.ID).String()
	}
	if _, err := run.Rollback(ctx, plan, rec.State); err != nil {
		return err
	}
	run.say("rolled back: the manifest no longer asks for the rotation")
	return rotationrun.ClearRotation(ctx, s)
}

// rotator readies a rotation (or its roll-back) of pool: the kind's part (the cloud's pool API,
// the node labels, the timeouts), a client of the cluster through its kubeconfig held in memory,
// the progress lines written to progress, and record, told each phase after a line says it.
// self is the id of the stack's own cluster or pool.
func (d rotating) rotator(ctx context.Context, t deploytarget.Target, self, pool string, progress io.Writer,
	record func(context.Context, rotation.State) error) (*rotationRun, error) {
	// The surge pool takes the module's tags, the stack's mark among them.
	kr, err := t.Rotate(stackmark.Context(ctx, t.Mark()), t.Input, self, d.resolve)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := kr.Kubeconfig(ctx)
	if err != nil {
		return nil, err
	}
	client, err := drain.New(kubeconfig)
	if err != nil {
		return nil, err
	}
	say := func(msg string) {
		if progress != nil {
			fmt.Fprintf(progress, "rotation of pool %s: %s\n", pool, msg)
		}
	}
	// last is the phase recorded before, so that a start recorded after a roll-back reads as
	// its end.
	var last rotation.Phase
	return &rotationRun{
		Rotator: &rotation.Rotator{
			Cloud: rotationrun.Selecting{Pools: kr.Cloud, Cloud: kr.NodeLabels},
			Nodes: rotationrun.RotationNodes{Client: client, WaitRunning: kr.WaitRunning, Say: say},
			Recorder: rotationrun.RecorderFunc(func(ctx context.Context, state rotation.State) error {
				defer func() { last = state.Phase }()
				switch {
				case state.Hop > 0:
					say(fmt.Sprintf("second hop, phase %s", cmp.Or(string(state.Phase), "start")))
				case state.Phase == rotation.Start && last == rotation.RollingBack:
					// Only a roll-back records the start again: the surge pool is gone.
					say("rolled back to the old pool")
				case state.Phase == rotation.Start:
					say("started (rotation " + state.ID + ")")
				case state.Phase == rotation.RollingBack:
					say("rolling back: the surge pool goes")
				default:
					say("phase " + string(state.Phase))
				}
				if err := record(ctx, state); err != nil {
					return err
				}
				if d.told != nil {
					d.told(t, pool, state)
				}
				return nil
			}),
		},
		kind: kr,
		say:  say,
	}, nil
}

// rotationRun is a rotation readied: the phase machine over the pools and the nodes, the kind's
// part of it, and the progress lines.
type rotationRun struct {
	*rotation.Rotator
	// kind is the kind's part: the cloud's pool API, the node labels, the timeouts, the final name.
	kind *kinds.Rotation
	// say writes a progress line about the pool.
	say func(string)
}

// surgeTaken is what preview says when the cluster already holds a pool of the name a rotation
// not yet started would create: up refuses then (pkg/change/rotation's ForeignPoolError), and the
// preview must not read as if it would not. nil when the names are free, or when a rotation is
// under way (its own surge pool, which carries its mark, is found by it).
func (d rotating) surgeTaken(ctx context.Context, t deploytarget.Target, s stackstate.Stack, carried []rotation.Rotation) (*outcome.Outcome, error) {
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	if rec, err := rotationrun.RecordedRotation(st.Outputs()); err != nil || rec != nil && rec.Phase != rotation.Done {
		return nil, err
	}
	self := ""
	if ids, _ := st.IDs(deploytarget.GuardedType(t.Effects)); len(ids) == 1 {
		self = ids[0]
	}
	kr, err := t.Rotate(ctx, t.Input, self, d.resolve)
	if err != nil {
		return nil, errors.Wrap(err, "look for a pool of the surge name")
	}
	for _, r := range carried {
		i := slices.IndexFunc(r.Steps, func(s rotation.Step) bool { return s.Action == rotation.StepCreate })
		if i < 0 {
			continue
		}
		// No mark is asked for: a rotation not started has none, so any pool of the name is not its.
		_, err := kr.Cloud.Find(ctx, r.Steps[i].Pool, "")
		var foreign *rotation.ForeignPoolError
		if errors.As(err, &foreign) {
			return &outcome.Outcome{Status: outcome.Blocked, Reason: "refused: surge pool name taken", Err: err}, nil
		}
		if err != nil {
			return nil, errors.Wrapf(err, "look for pool %s", r.Steps[i].Pool)
		}
	}
	return nil, nil
}

// protectedRotation reads a preview the engine refused, because it would replace a protected
// cluster, as the rotation of its default pool that up carries out instead: up never sends the
// engine that replacement (it rotates the pool first, and the engine then finds the cluster met).
// ok only when the manifest asks for such a rotation, nothing else is refused or replaced, and
// every replacement the engine planned is of the cluster.
func (d rotating) protectedRotation(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result) (_ outcome.Outcome, ok bool) {
	st, err := s.State(ctx)
	if err != nil {
		return outcome.Outcome{}, false
	}
	outputs := st.Outputs()
	refused, err := t.Refused(outputs)
	if err != nil || len(refused) > 0 {
		return outcome.Outcome{}, false
	}
	blocked, carried, err := rotationrun.RotationGate(t, outputs)
	if err != nil || blocked != nil || len(carried) == 0 {
		return outcome.Outcome{}, false
	}
	if replaced, err := rotationrun.ReplacedBesides(t, outputs); err != nil || len(replaced) > 0 ||
		!rotationrun.OnlyPoolReplaced(res, deploytarget.GuardedType(t.Effects)) {
		return outcome.Outcome{}, false
	}
	if taken, err := d.surgeTaken(ctx, t, s, carried); err != nil || taken != nil {
		if err != nil {
			return failed(err), true
		}
		taken.Result = &res
		return *taken, true
	}
	if w := d.progress.of(t); w != nil {
		// The engine's own lines above end in errors ("marked for protection", "errored"),
		// which read as a failed preview; they are its refusal of the replacement only.
		fmt.Fprintf(w, "The errors above are the engine refusing to replace the protected %s, as it must: nothing failed. "+
			"up does not replace it: it rotates the pool (%s).\n", rotationrun.ReplacedByRotation(carried), rotationrun.DescribeRotations(carried))
	}
	return outcome.Outcome{Status: outcome.Done, Result: &res, Rotations: carried,
		Reason: "rotation " + rotationrun.DescribeRotations(carried) + "; the engine then finds the new pool"}, true
}
