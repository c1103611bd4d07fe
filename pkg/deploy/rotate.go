package deploy

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// RotationOutput is the stack output where an up records how far a pool rotation got (JSON of
// RotationRecord, no secret): written into the stack's state between the rotation's steps, so that
// a stopped or killed up resumes where it stopped and status can say a rotation is under way. The
// engine's next up, once the rotation is done, exports the program's outputs and so drops it.
const RotationOutput = "clusterplane_rotation"

// RotationRecord is what RotationOutput holds.
type RotationRecord struct {
	// Pool is the pool's name when the rotation started.
	Pool string `json:"pool"`
	rotation.State
}

// rotatedPools are the pools up rotates for a kind with a Rotate: a pool kind's own pool, or a
// cluster kind's default pool (rotation.Rotation's Pool).
var rotatedPools = []string{"spec", "spec.defaultNodePool"}

// carriedOut splits rotations into those up carries out for t (the kind's pool itself, or its
// default pool, with a Rotate) and the others.
func carriedOut(t deploytarget.Target, rotations []rotation.Rotation) (doable, not []rotation.Rotation) {
	for _, r := range rotations {
		if t.Rotate != nil && slices.Contains(rotatedPools, r.Pool) {
			doable = append(doable, r)
		} else {
			not = append(not, r)
		}
	}
	return doable, not
}

// RecordedRotation is the rotation recorded in the stack's outputs; nil when none is.
func RecordedRotation(outputs map[string]stackstate.Output) (*RotationRecord, error) {
	text := stackstate.StringOutput(outputs, RotationOutput)
	if text == "" {
		return nil, nil
	}
	var rec RotationRecord
	if err := json.Unmarshal([]byte(text), &rec); err != nil {
		return nil, errors.Wrapf(err, "read the stack's %s output", RotationOutput)
	}
	return &rec, nil
}

// describeRotations says rotations' steps in a line: "pool workers: create workers-surge, ...".
func describeRotations(rotations []rotation.Rotation) string {
	var parts []string
	for _, r := range rotations {
		var steps []string
		for _, s := range r.Steps {
			steps = append(steps, s.Action+" "+s.Pool)
		}
		parts = append(parts, "pool "+r.Name+" ("+strings.Join(r.Changes, ", ")+"): "+strings.Join(steps, ", "))
	}
	return strings.Join(parts, "; ")
}

// replacedByRotation is what the engine would replace instead of the rotations: the pool, or
// through a default pool the cluster.
func replacedByRotation(rotations []rotation.Rotation) string {
	for _, r := range rotations {
		if r.Pool != "spec" {
			return "cluster"
		}
	}
	return "pool"
}

// onlyPoolReplaced tells whether every replacement of res is of a resource of type typ: the pool
// the rotation stands in for.
func onlyPoolReplaced(res stackstate.Result, typ string) bool {
	for _, step := range res.Steps {
		if step.IsAction("replace", "create-replacement", "delete-replaced") && step.Type != typ {
			return false
		}
	}
	return true
}

// RotationStoppedError: a rotation up started stopped between its steps; both pools may be in
// place. Its message (pkg/change/rotation's) says where, how to resume (up again) and how to roll back.
type RotationStoppedError struct {
	Err error
}

func (e *RotationStoppedError) Error() string { return e.Err.Error() }
func (e *RotationStoppedError) Unwrap() error { return e.Err }

// rotateFirst carries out, before the engine runs, the rotation the manifest asks for (or the
// one a stopped up recorded): the pools changed through the cloud's API and the cluster's nodes
// drained, then the stack's state pointed at the new pool and refreshed, so that the engine's up
// that follows changes the pool in place at most, never replaces it. stop is nil when there is
// nothing to rotate or the rotation is done (or rolled back), and did then says which, for up's
// report (the progress lines are not printed with --quiet); else stop is the outcome to return.
func (d *Deployer) rotateFirst(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, opts UpOptions) (stop *outcome.Outcome, did string) {
	rotations, err := Rotations(t.Effects, t.Input, st.Outputs())
	if err != nil {
		o := failed(err)
		return &o, ""
	}
	doable, _ := carriedOut(t, rotations)
	rec, err := RecordedRotation(st.Outputs())
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
func (d *Deployer) rollBackStopped(ctx context.Context, t deploytarget.Target, s stackstate.Stack, self string, rec *RotationRecord, opts UpOptions) (stop *outcome.Outcome, did string) {
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
		return &outcome.Outcome{Status: outcome.Failed, Reason: "rotation stopped", Err: &RotationStoppedError{Err: err}}, ""
	}
	return nil, fmt.Sprintf("rotation of pool %s rolled back (its surge pool deleted, the old pool kept)", rec.Pool)
}

// rotationAllowed stops the one rotation the manifest asks for before anything of it is made: a
// new one beside a change the engine would still replace, one not confirmed, one the backend
// cannot lock the stack for.
func (d *Deployer) rotationAllowed(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, doable []rotation.Rotation, rec *RotationRecord, opts UpOptions) *outcome.Outcome {
	r := doable[0]
	if rec == nil {
		// A rotation stands in for the replacement of its pool (or, through the default pool, of the
		// cluster) only: another change that replaces would still be made by the engine after it,
		// the rotation's work lost with what it replaces.
		replaced, err := replacedBesides(t.Effects, t.Input, st.Outputs())
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
			return &outcome.Outcome{Status: outcome.Blocked, Reason: reason + ": rotation " + describeRotations(doable), Result: &preview}
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
func (d *Deployer) rotate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, r rotation.Rotation, rec *RotationRecord, ids []string) (stop *outcome.Outcome, did string) {
	self := ""
	if len(ids) == 1 {
		self = ids[0]
	}
	progress := d.progress(t)
	run, err := d.rotator(ctx, t, self, r.Name, progress, func(ctx context.Context, state rotation.State) error {
		return recordRotation(ctx, s, &RotationRecord{Pool: rec.Pool, State: state})
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
		rec = &RotationRecord{Pool: r.Name, State: rotation.State{OldID: old}}
	}
	if rec.ID == "" {
		// A new rotation, or one an older clusterplane recorded without an id: the pools it
		// creates from here carry this id's mark.
		rec.ID = rotation.NewID()
	}
	plan := planOf(r, rec.Pool, run.kind)
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
		return &outcome.Outcome{Status: outcome.Failed, Reason: "rotation stopped", Err: &RotationStoppedError{Err: err}}, ""
	}
	return d.rotated(ctx, t, s, r, run, final.SurgeID)
}

// rotated points the stack at the new pool once the rotation r is done: the state takes the new
// pool's id, and a refresh reads it (its new size, its name), so that the engine's diff finds the
// manifest met, not a pool to replace. A pool inside the stack's resource (a cluster's default
// pool) keeps the resource's id: the refresh reads the new pool into it, found by the cloud as the
// old one was.
func (d *Deployer) rotated(ctx context.Context, t deploytarget.Target, s stackstate.Stack, r rotation.Rotation, run *rotationRun, surge string) (stop *outcome.Outcome, did string) {
	if run.kind.OldPool == nil {
		id := surge
		if run.kind.StateID != nil {
			id = run.kind.StateID(id)
		}
		if err := pointPoolAt(ctx, s, deploytarget.GuardedType(t.Effects), id); err != nil {
			o := failed(errors.Wrapf(err, "rotation of pool %s done; point the stack at the new pool %s", r.Name, surge))
			return &o, ""
		}
	}
	if _, err := d.refreshGuarded(ctx, t, s, "up", stackstate.Options{Progress: d.progress(t)}); err != nil {
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

// planOf is the rotation r of pool old as the phase machine carries it out: the pools diff's
// steps create (the surge pool, and on a cloud that cannot rename, such as Civo's for a pool that
// keeps its name, the pool of the manifest's name a second hop goes back to), the rename where
// diff plans one, and the kind's waits.
func planOf(r rotation.Rotation, old string, kind *kinds.Rotation) rotation.Settings {
	plan := rotation.Settings{Old: old, Nodes: kind.Nodes, ReadyTimeout: kind.ReadyTimeout, Drain: kind.Drain}
	for _, step := range r.Steps {
		switch step.Action {
		case rotation.StepCreate:
			if plan.Surge == "" {
				plan.Surge = step.Pool
			} else {
				plan.Back = step.Pool
			}
		case rotation.StepRename:
			plan.Final = kind.Final
		}
	}
	return plan
}

// rollBack gives up a rotation stopped before its drain ended, when the manifest no longer asks
// for it: the old pool's nodes uncordoned (if they were cordoned), the surge pool deleted, and the
// record dropped, so that up goes on with the old pool as the stack holds it.
func (d *Deployer) rollBack(ctx context.Context, t deploytarget.Target, s stackstate.Stack, self string, rec *RotationRecord) error {
	// The roll-back records that it is under way before it deletes anything (so that a kill
	// during it is known as one); its end is the record's removal, below.
	run, err := d.rotator(ctx, t, self, rec.Pool, d.progress(t), func(ctx context.Context, state rotation.State) error {
		return recordRotation(ctx, s, &RotationRecord{Pool: rec.Pool, State: state})
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
	return clearRotation(ctx, s)
}

// rotator readies a rotation (or its roll-back) of pool: the kind's part (the cloud's pool API,
// the node labels, the timeouts), a client of the cluster through its kubeconfig held in memory,
// the progress lines written to progress, and record, told each phase after a line says it.
// self is the id of the stack's own cluster or pool.
func (d *Deployer) rotator(ctx context.Context, t deploytarget.Target, self, pool string, progress io.Writer,
	record func(context.Context, rotation.State) error) (*rotationRun, error) {
	kr, err := t.Rotate(ctx, t.Input, self, d.resolve)
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
			Cloud: selecting{Pools: kr.Cloud, cloud: kr.NodeLabels},
			Nodes: rotationNodes{c: client, waitRunning: kr.WaitRunning, say: say},
			Recorder: recorderFunc(func(ctx context.Context, state rotation.State) error {
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
				if d.Rotating != nil {
					d.Rotating(t, pool, state)
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

// clearRotation drops RotationOutput from the stack's outputs.
func clearRotation(ctx context.Context, s stackstate.Stack) error {
	return editResources(ctx, s, func(r map[string]json.RawMessage) error {
		if typeOf(r) != string(resource.RootStackType) {
			return nil
		}
		outputs := map[string]json.RawMessage{}
		if err := stackstate.UnmarshalIfAny(r["outputs"], &outputs); err != nil {
			return err
		}
		delete(outputs, RotationOutput)
		return setJSON(r, "outputs", outputs)
	})
}

// selecting is the kind's pool API with the node labels of its cloud (pkg/cloud/drain's PoolSelector).
type selecting struct {
	kinds.Pools
	cloud string
}

func (s selecting) Selector(id, name string) map[string]string {
	sel, _ := drain.PoolSelector(s.cloud, name, id)
	return sel
}

type recorderFunc func(ctx context.Context, s rotation.State) error

func (f recorderFunc) Save(ctx context.Context, s rotation.State) error { return f(ctx, s) }

// rotationNodes is pkg/cloud/drain's client as pkg/change/rotation asks for it: the cloud first says the
// surge pool's nodes run, then the cluster says they are Ready.
type rotationNodes struct {
	c           *drain.Client
	waitRunning func(ctx context.Context, name string, timeout time.Duration) error
	say         func(string)
}

func pool(p rotation.Pool) drain.Pool { return drain.Pool{Name: p.Name, Selector: p.Selector} }

func (n rotationNodes) WaitReady(ctx context.Context, p rotation.Pool, count int, timeout time.Duration) error {
	start := time.Now()
	if n.waitRunning != nil {
		if err := n.waitRunning(ctx, p.Name, timeout); err != nil {
			return err
		}
	}
	if err := n.c.WaitReady(ctx, pool(p), count, max(timeout-time.Since(start), time.Second)); err != nil {
		return err
	}
	n.say(fmt.Sprintf("%d nodes of pool %s Ready", count, p.Name))
	return nil
}

func (n rotationNodes) Cordon(ctx context.Context, p rotation.Pool) error {
	return n.c.Cordon(ctx, pool(p))
}

func (n rotationNodes) Uncordon(ctx context.Context, p rotation.Pool) error {
	return n.c.Uncordon(ctx, pool(p))
}

func (n rotationNodes) Drain(ctx context.Context, p rotation.Pool, o rotation.DrainOptions) error {
	return n.c.Drain(ctx, pool(p), drain.Options{Timeout: o.Timeout, DeleteEmptyDirData: o.DeleteEmptyDirData, Progress: o.Progress})
}

// recordRotation writes rec into the stack's outputs in its state.
func recordRotation(ctx context.Context, s stackstate.Stack, rec *RotationRecord) error {
	text, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return editResources(ctx, s, func(r map[string]json.RawMessage) error {
		if typeOf(r) != string(resource.RootStackType) {
			return nil
		}
		outputs := map[string]json.RawMessage{}
		if err := stackstate.UnmarshalIfAny(r["outputs"], &outputs); err != nil {
			return err
		}
		value, _ := json.Marshal(string(text))
		outputs[RotationOutput] = value
		return setJSON(r, "outputs", outputs)
	})
}

// pointPoolAt gives the stack's pool resource (of type typ) the cloud id id.
func pointPoolAt(ctx context.Context, s stackstate.Stack, typ, id string) error {
	return editResources(ctx, s, func(r map[string]json.RawMessage) error {
		if typeOf(r) != typ {
			return nil
		}
		if err := setJSON(r, "id", id); err != nil {
			return err
		}
		outputs := map[string]json.RawMessage{}
		if err := stackstate.UnmarshalIfAny(r["outputs"], &outputs); err != nil {
			return err
		}
		if _, ok := outputs["id"]; ok {
			value, _ := json.Marshal(id)
			outputs["id"] = value
			return setJSON(r, "outputs", outputs)
		}
		return nil
	})
}

func typeOf(r map[string]json.RawMessage) string {
	var typ string
	_ = json.Unmarshal(r["type"], &typ)
	return typ
}

func setJSON(r map[string]json.RawMessage, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return errors.Wrapf(err, "write the state's %s", key)
	}
	r[key] = b
	return nil
}

// editResources edits each resource of the stack's state as JSON, every field it does not touch
// kept as it is, and imports the result.
func editResources(ctx context.Context, s stackstate.Stack, edit func(r map[string]json.RawMessage) error) error {
	st, err := stackstate.ReadState(ctx, s)
	if err != nil {
		return err
	}
	var deployment map[string]json.RawMessage
	if err := json.Unmarshal(st.Raw.Deployment, &deployment); err != nil {
		return errors.Wrap(err, "read the stack's state")
	}
	var resources []map[string]json.RawMessage
	if err := stackstate.UnmarshalIfAny(deployment["resources"], &resources); err != nil {
		return err
	}
	for _, r := range resources {
		if err := edit(r); err != nil {
			return err
		}
	}
	if err := setJSON(deployment, "resources", resources); err != nil {
		return err
	}
	raw := st.Raw
	if raw.Deployment, err = json.Marshal(deployment); err != nil {
		return errors.Wrap(err, "write the stack's state")
	}
	return errors.Wrap(s.Import(ctx, raw), "record the rotation in the stack's state")
}

// previewRotation makes a preview whose replacement of the pool a rotation stands in for read as
// what up will do: the rotation's steps, then the engine's change; Done, as any change up
// carries out, unless something else is replaced too.
func previewRotation(o *outcome.Outcome, t deploytarget.Target, carried []rotation.Rotation) {
	o.Rotations = carried
	if o.Result == nil || !onlyPoolReplaced(*o.Result, deploytarget.GuardedType(t.Effects)) {
		return
	}
	o.Status, o.Reason = outcome.Done, "rotation "+describeRotations(carried)+"; the engine then finds the new pool"
}

// surgeTaken is what preview says when the cluster already holds a pool of the name a rotation
// not yet started would create: up refuses then (pkg/change/rotation's ForeignPoolError), and the
// preview must not read as if it would not. nil when the names are free, or when a rotation is
// under way (its own surge pool, which carries its mark, is found by it).
func (d *Deployer) surgeTaken(ctx context.Context, t deploytarget.Target, s stackstate.Stack, carried []rotation.Rotation) (*outcome.Outcome, error) {
	st, err := stackstate.ReadState(ctx, s)
	if err != nil {
		return nil, err
	}
	if rec, err := RecordedRotation(st.Outputs()); err != nil || rec != nil && rec.Phase != rotation.Done {
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
func (d *Deployer) protectedRotation(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result) (_ outcome.Outcome, ok bool) {
	st, err := stackstate.ReadState(ctx, s)
	if err != nil {
		return outcome.Outcome{}, false
	}
	outputs := st.Outputs()
	refused, err := deploytarget.Refused(t.Effects, t.Input, outputs)
	if err != nil || len(refused) > 0 {
		return outcome.Outcome{}, false
	}
	blocked, carried, err := rotationGate(t, outputs)
	if err != nil || blocked != nil || len(carried) == 0 {
		return outcome.Outcome{}, false
	}
	if replaced, err := replacedBesides(t.Effects, t.Input, outputs); err != nil || len(replaced) > 0 ||
		!onlyPoolReplaced(res, deploytarget.GuardedType(t.Effects)) {
		return outcome.Outcome{}, false
	}
	if taken, err := d.surgeTaken(ctx, t, s, carried); err != nil || taken != nil {
		if err != nil {
			return failed(err), true
		}
		taken.Result = &res
		return *taken, true
	}
	if w := d.progress(t); w != nil {
		// The engine's own lines above end in errors ("marked for protection", "errored"),
		// which read as a failed preview; they are its refusal of the replacement only.
		fmt.Fprintf(w, "The errors above are the engine refusing to replace the protected %s, as it must: nothing failed. "+
			"up does not replace it: it rotates the pool (%s).\n", replacedByRotation(carried), describeRotations(carried))
	}
	return outcome.Outcome{Status: outcome.Done, Result: &res, Rotations: carried,
		Reason: "rotation " + describeRotations(carried) + "; the engine then finds the new pool"}, true
}

// rotationUnderWay is the Ready condition of a stack whose rotation an up started and no up
// finished: not Ready, saying where it stopped; ready otherwise.
func rotationUnderWay(outputs map[string]stackstate.Output, ready outcome.Condition) outcome.Condition {
	rec, err := RecordedRotation(outputs)
	if err != nil || rec == nil || rec.Phase == rotation.Done {
		return ready
	}
	if rec.Phase == rotation.RollingBack {
		return outcome.Condition{Type: "Ready", Status: "False", Reason: "RotationUnderWay", Message: fmt.Sprintf(
			"the roll-back of pool %s's rotation stopped before it ended: pool %s is in use, and the surge pool %s may still "+
				"be in the cloud; run up to finish the roll-back", rec.Pool, rec.OldID, orNone(rec.SurgeID))}
	}
	if rec.Phase == rotation.Start {
		// Recorded before the create: the cloud may hold the surge pool or not.
		return outcome.Condition{Type: "Ready", Status: "False", Reason: "RotationUnderWay", Message: fmt.Sprintf(
			"a rotation of pool %s stopped at its start, its surge pool perhaps created (old pool %s): run up to resume it, "+
				"or up with the manifest's old settings to roll it back", rec.Pool, rec.OldID)}
	}
	if rec.Hop > 0 {
		return outcome.Condition{Type: "Ready", Status: "False", Reason: "RotationUnderWay", Message: fmt.Sprintf(
			"a rotation of pool %s stopped in its second hop after phase %q (pool drained %s, pool of the manifest's name %s): "+
				"run up to finish it", rec.Pool, cmp.Or(string(rec.Phase), "start"), rec.OldID, orNone(rec.SurgeID))}
	}
	// Before the drain ends, up goes on or rolls back as the manifest says: both are said, since
	// status does not know which manifest the next up is given.
	next := "run up with the manifest that started it to finish it, or up with the pool's old settings to roll it back"
	if rec.Phase == rotation.Drained || rec.Phase == rotation.OldDeleted {
		next = "run up to finish it (the old pool's workloads have moved: it cannot be rolled back)"
	}
	return outcome.Condition{Type: "Ready", Status: "False", Reason: "RotationUnderWay", Message: fmt.Sprintf(
		"a rotation of pool %s stopped after phase %q (old pool %s, surge pool %s): %s", rec.Pool, rec.Phase,
		rec.OldID, orNone(rec.SurgeID), next)}
}

func orNone(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}
