package rotationrun

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
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

// CarriedOut splits rotations into those up carries out for t (the kind's pool itself, or its
// default pool, with a Rotate) and the others.
func CarriedOut(t deploytarget.Target, rotations []rotation.Rotation) (doable, not []rotation.Rotation) {
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

// DescribeRotations says rotations' steps in a line: "pool workers: create workers-surge, ...".
func DescribeRotations(rotations []rotation.Rotation) string {
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

// ReplacedByRotation is what the engine would replace instead of the rotations: the pool, or
// through a default pool the cluster.
func ReplacedByRotation(rotations []rotation.Rotation) string {
	for _, r := range rotations {
		if r.Pool != "spec" {
			return "cluster"
		}
	}
	return "pool"
}

// OnlyPoolReplaced tells whether every replacement of res is of a resource of type typ: the pool
// the rotation stands in for.
func OnlyPoolReplaced(res stackstate.Result, typ string) bool {
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

// PlanOf is the rotation r of pool old as the phase machine carries it out: the pools diff's
// steps create (the surge pool, and on a cloud that cannot rename, such as Civo's for a pool that
// keeps its name, the pool of the manifest's name a second hop goes back to), the rename where
// diff plans one, and the kind's waits.
func PlanOf(r rotation.Rotation, old string, kind *kinds.Rotation) rotation.Settings {
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

// ClearRotation drops RotationOutput from the stack's outputs.
func ClearRotation(ctx context.Context, s stackstate.Stack) error {
	return editStackOutputs(ctx, s, func(outputs map[string]json.RawMessage) {
		delete(outputs, RotationOutput)
	})
}

// editStackOutputs lets edit change the stack's own outputs (the root stack resource's) in its
// state, and writes them back.
func editStackOutputs(ctx context.Context, s stackstate.Stack, edit func(outputs map[string]json.RawMessage)) error {
	return editResources(ctx, s, func(r map[string]json.RawMessage) error {
		if typeOf(r) != string(resource.RootStackType) {
			return nil
		}
		outputs := map[string]json.RawMessage{}
		if err := stackstate.UnmarshalIfAny(r["outputs"], &outputs); err != nil {
			return err
		}
		edit(outputs)
		return setJSON(r, "outputs", outputs)
	})
}

// Selecting is the kind's pool API with the node labels of its cloud (pkg/cloud/drain's PoolSelector).
type Selecting struct {
	kinds.Pools
	Cloud string
}

// Selector is the node labels of the pool named name with cloud id id.
func (s Selecting) Selector(id, name string) map[string]string {
	sel, _ := drain.PoolSelector(s.Cloud, name, id)
	return sel
}

// RecorderFunc saves a rotation's state where the stack keeps it (RecordRotation).
type RecorderFunc func(ctx context.Context, s rotation.State) error

// Save calls f.
func (f RecorderFunc) Save(ctx context.Context, s rotation.State) error { return f(ctx, s) }

// RotationNodes is pkg/cloud/drain's client as pkg/change/rotation asks for it: the cloud first says the
// surge pool's nodes run, then the cluster says they are Ready.
type RotationNodes struct {
	Client      *drain.Client
	WaitRunning func(ctx context.Context, name string, timeout time.Duration) error
	Say         func(string)
}

func pool(p rotation.Pool) drain.Pool { return drain.Pool{Name: p.Name, Selector: p.Selector} }

func (n RotationNodes) WaitReady(ctx context.Context, p rotation.Pool, count int, timeout time.Duration) error {
	start := time.Now()
	if n.WaitRunning != nil {
		if err := n.WaitRunning(ctx, p.Name, timeout); err != nil {
			return err
		}
	}
	if err := n.Client.WaitReady(ctx, pool(p), count, max(timeout-time.Since(start), time.Second)); err != nil {
		return err
	}
	n.Say(fmt.Sprintf("%d nodes of pool %s Ready", count, p.Name))
	return nil
}

func (n RotationNodes) Cordon(ctx context.Context, p rotation.Pool) error {
	return n.Client.Cordon(ctx, pool(p))
}

func (n RotationNodes) Uncordon(ctx context.Context, p rotation.Pool) error {
	return n.Client.Uncordon(ctx, pool(p))
}

func (n RotationNodes) Drain(ctx context.Context, p rotation.Pool, o rotation.DrainOptions) error {
	return n.Client.Drain(ctx, pool(p), drain.Options{Timeout: o.Timeout, DeleteEmptyDirData: o.DeleteEmptyDirData, Progress: o.Progress})
}

// RecordRotation writes rec into the stack's outputs in its state.
func RecordRotation(ctx context.Context, s stackstate.Stack, rec *RotationRecord) error {
	text, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	value, err := json.Marshal(string(text))
	if err != nil {
		return err
	}
	return editStackOutputs(ctx, s, func(outputs map[string]json.RawMessage) {
		outputs[RotationOutput] = value
	})
}

// PointPoolAt gives the stack's pool resource (of type typ) the cloud id id.
func PointPoolAt(ctx context.Context, s stackstate.Stack, typ, id string) error {
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
	st, err := s.State(ctx)
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

// PreviewRotation makes a preview whose replacement of the pool a rotation stands in for read as
// what up will do: the rotation's steps, then the engine's change; Done, as any change up
// carries out, unless something else is replaced too.
func PreviewRotation(o *outcome.Outcome, t deploytarget.Target, carried []rotation.Rotation) {
	o.Rotations = carried
	if o.Result == nil || !OnlyPoolReplaced(*o.Result, deploytarget.GuardedType(t.Effects)) {
		return
	}
	o.Status, o.Reason = outcome.Done, "rotation "+DescribeRotations(carried)+"; the engine then finds the new pool"
}

// RotationUnderWay is the Ready condition of a stack whose rotation an up started and no up
// finished: not Ready, saying where it stopped; ready otherwise.
func RotationUnderWay(outputs map[string]stackstate.Output, ready outcome.Condition) outcome.Condition {
	rec, err := RecordedRotation(outputs)
	if err != nil || rec == nil || rec.Phase == rotation.Done {
		return ready
	}
	if rec.Phase == rotation.RollingBack {
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.RotationUnderWay, Message: fmt.Sprintf(
			"the roll-back of pool %s's rotation stopped before it ended: pool %s is in use, and the surge pool %s may still "+
				"be in the cloud; run up to finish the roll-back", rec.Pool, rec.OldID, orNone(rec.SurgeID))}
	}
	if rec.Phase == rotation.Start {
		// Recorded before the create: the cloud may hold the surge pool or not.
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.RotationUnderWay, Message: fmt.Sprintf(
			"a rotation of pool %s stopped at its start, its surge pool perhaps created (old pool %s): run up to resume it, "+
				"or up with the manifest's old settings to roll it back", rec.Pool, rec.OldID)}
	}
	if rec.Hop > 0 {
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.RotationUnderWay, Message: fmt.Sprintf(
			"a rotation of pool %s stopped in its second hop after phase %q (pool drained %s, pool of the manifest's name %s): "+
				"run up to finish it", rec.Pool, cmp.Or(string(rec.Phase), "start"), rec.OldID, orNone(rec.SurgeID))}
	}
	// Before the drain ends, up goes on or rolls back as the manifest says: both are said, since
	// status does not know which manifest the next up is given.
	next := "run up with the manifest that started it to finish it, or up with the pool's old settings to roll it back"
	if rec.Phase == rotation.Drained || rec.Phase == rotation.OldDeleted {
		next = "run up to finish it (the old pool's workloads have moved: it cannot be rolled back)"
	}
	return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.RotationUnderWay, Message: fmt.Sprintf(
		"a rotation of pool %s stopped after phase %q (old pool %s, surge pool %s): %s", rec.Pool, rec.Phase,
		rec.OldID, orNone(rec.SurgeID), next)}
}

func orNone(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}
