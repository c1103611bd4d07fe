// Package rotation is everything a pool rotation is, except running it under the stack's lock
// (pkg/deploy): a pool that the cloud cannot change in place is replaced by a surge pool with the
// new settings, its nodes Ready, the old pool cordoned, drained and deleted, the surge pool
// renamed. It lives in one package so that the rules that keep a rotation safe (it never orphans
// a pool, never takes a pool of the surge's name that it did not make) are read in one place:
//
//   - decide.go: which change a rotation carries out, from the pool's rollout block, and the
//     steps of each pool's rotation with what they cost (diff shows them, up carries them out);
//   - rotation.go: the state machine that carries a rotation's Settings out, recording each phase (Rotator);
//   - mark.go: the mark that the pools a rotation creates carry, by which it finds them again.
//
// Each cloud's pool moves (find, create, delete, rename, the marked pools) are its driver's, in
// pkg/cloud/<cloud>/rotation.go (digitalocean.Pools over godo, civo.Pools over Civo's pool API),
// not here.
//
// A cloud that cannot rename (Civo, whose pool name is its id) makes a pool that keeps its name in
// two hops: the same steps from the old pool to the surge pool, then from the surge pool to a new
// pool of the manifest's name (Settings.Back). Each phase is recorded before the next starts, so that a
// rotation stopped anywhere (a drain timeout, a cloud error, kill -9) resumes where it stopped, and
// every step can be repeated: a pool that exists is not created again, cordoning and draining a
// node twice is harmless, a pool already gone is not deleted again.
//
// The cloud's pools and the cluster's nodes are interfaces here: up (pkg/deploy, rotate.go) fills
// them with the kind's pool API (the kind's kinds.Rotate, in iac/pulumi/<kind>/entry/rotate.go,
// which returns its driver's Pools) and pkg/cloud/drain, which drains nodes through the
// Kubernetes API for any caller.
package rotation

import (
	"context"
	"fmt"
	"time"

	"github.com/pkg/errors"
)

// Phase is how far a rotation got: the last step that finished.
type Phase string

// The phases, in order.
const (
	Start        Phase = ""
	SurgeCreated Phase = "surge-created"
	SurgeReady   Phase = "surge-ready"
	Cordoned     Phase = "cordoned"
	Drained      Phase = "drained"
	OldDeleted   Phase = "old-deleted"
	Done         Phase = "done"
	// RollingBack is recorded by a roll-back before it deletes the surge pool: a roll-back killed
	// after it is known as such, and the next up finishes it instead of believing both pools are
	// in place.
	RollingBack Phase = "rolling-back"
)

// State is what a rotation records between steps (the stack's config in up): enough to resume.
type State struct {
	// ID names this rotation; it is recorded before any pool is created, and every pool the
	// rotation creates carries it in its Mark, so that a resume, a roll-back or a second runner
	// finds exactly the pools this rotation made, never a pool of the same name made by someone
	// else.
	ID    string `json:"id,omitempty"`
	Phase Phase  `json:"phase"`
	// Hop is the hop under way: 0 the first (old pool to surge pool), 1 the second of a plan
	// with a Back pool (surge pool to the pool of the manifest's name). Phase is the hop's.
	Hop int `json:"hop,omitempty"`
	// OldID and SurgeID are the cloud ids of the hop's pool it drains and of the pool it creates,
	// once known: in the second hop, the surge pool's and the Back pool's.
	OldID   string `json:"oldId"`
	SurgeID string `json:"surgeId,omitempty"`
}

// Pool is a pool as the cluster's nodes show it: its name and the node labels that select its
// nodes (pkg/cloud/drain's Pool).
type Pool struct {
	Name     string
	Selector map[string]string
}

// DrainOptions are pkg/cloud/drain's Options.
type DrainOptions struct {
	Timeout            time.Duration
	DeleteEmptyDirData bool
	Progress           func(msg string)
}

// Nodes is what a rotation asks of the cluster's nodes; pkg/cloud/drain's client, through the
// cluster's kubeconfig held in memory.
type Nodes interface {
	WaitReady(ctx context.Context, p Pool, count int, timeout time.Duration) error
	Cordon(ctx context.Context, p Pool) error
	Uncordon(ctx context.Context, p Pool) error
	// Drain evicts the pool's pods, PodDisruptionBudgets respected; on timeout it fails and
	// leaves the nodes cordoned.
	Drain(ctx context.Context, p Pool, o DrainOptions) error
}

// Cloud is what a rotation asks of the cloud's pool API.
type Cloud interface {
	// Find returns the id of the cluster's pool of that name when it carries mark, "" when the
	// cluster has no pool of that name, and a *ForeignPoolError when it has one without the
	// mark: a pool this rotation did not make, which it must neither use nor delete.
	Find(ctx context.Context, name, mark string) (id string, err error)
	// Create creates the surge pool with the new settings, carrying mark, and returns its id.
	Create(ctx context.Context, name, mark string) (id string, err error)
	Delete(ctx context.Context, id string) error
	// Rename gives the pool its final name (and, for DigitalOcean's default pool, the default
	// pool's tag); nil for a cloud that cannot rename.
	Rename(ctx context.Context, id, name string) error
	// Selector selects the nodes of the pool of that id and name.
	Selector(id, name string) map[string]string
}

// Recorder keeps a rotation's state where up finds it again.
type Recorder interface {
	Save(ctx context.Context, s State) error
}

// Settings are one rotation's: its pools' names, the surge pool's node count and the drain's
// settings. Not a plan: a plan is the engine's saved plan (savedplan.Plan).
type Settings struct {
	// Old is the pool's name now, Surge the surge pool's, Final the name the surge pool ends with
	// ("" when the cloud cannot rename: it keeps Surge).
	Old, Surge, Final string
	// Back, when set, is a second hop: once the old pool is deleted, a pool of this name (and of
	// the same settings) is created, and the surge pool cordoned, drained and deleted in turn. A
	// cloud that cannot rename gives a pool that keeps its name back its name so (Civo).
	Back string
	// Mark is what the pools this rotation creates carry in the cloud (a tag, a label): see
	// NewMark. Required.
	Mark string
	// Nodes is how many nodes of the surge pool must be Ready before the old pool is drained.
	Nodes        int
	ReadyTimeout time.Duration
	Drain        DrainOptions
}

// hops is how many hops the plan makes: 1, or 2 with a Back pool.
func (p Settings) hops() int {
	if p.Back != "" {
		return 2
	}
	return 1
}

// Hop names the pools of hop n: the one drained and the one created.
func (p Settings) Hop(n int) (from, to string) {
	if n > 0 {
		return p.Surge, p.Back
	}
	return p.Old, p.Surge
}

// Rotator carries out plans.
type Rotator struct {
	Cloud    Cloud
	Nodes    Nodes
	Recorder Recorder
}

// StoppedError: the rotation stopped between phases; both pools may be in place. It says how to
// go on and how to go back.
type StoppedError struct {
	Settings Settings
	State    State
	Err      error
}

func (e *StoppedError) Error() string {
	if e.State.Hop > 0 {
		// Past the first drain the workloads have left the old pool, which is gone: back is no way.
		from, to := e.Settings.Hop(e.State.Hop)
		msg := fmt.Sprintf("rotation of pool %s stopped in its second hop (from %s to %s) after phase %q: %v; the first hop is done, "+
			"pool %s deleted", e.Settings.Old, from, to, orStart(e.State.Phase), e.Err, e.Settings.Old)
		switch e.State.Phase {
		case Start, SurgeCreated, SurgeReady, Cordoned:
			return msg + fmt.Sprintf(", the workloads on %s%s. up again resumes here; the rotation cannot be rolled back, only finished",
				from, cordoned(e.State.Phase, from))
		}
		return msg + fmt.Sprintf(", the workloads moved on to %s. up again finishes the rotation", to)
	}
	msg := fmt.Sprintf("rotation of pool %s stopped after phase %q: %v", e.Settings.Old, e.State.Phase, e.Err)
	switch e.State.Phase {
	case RollingBack:
		return fmt.Sprintf("the roll-back of pool %s's rotation stopped: %v; pool %s is back in use, and the surge pool %s may "+
			"still be in the cloud, or being deleted. up again finishes the roll-back", e.Settings.Old, e.Err, e.Settings.Old, e.Settings.Surge)
	case Start:
		// Its create may have been sent, and carried out, before the error: the cloud may hold
		// the surge pool, which carries this rotation's mark.
		return msg + fmt.Sprintf("; the surge pool %s may or may not have been created. up again resumes (a pool it made is "+
			"found by its mark, not made twice); to roll back, up with the manifest's old settings (it deletes %s if it is there)",
			e.Settings.Surge, e.Settings.Surge)
	case SurgeCreated, SurgeReady, Cordoned:
		return msg + fmt.Sprintf("; both pools are in place (%s and %s)%s. up again resumes here; to roll back, "+
			"up with the manifest's old settings (it deletes pool %s%s)", e.Settings.Old, e.Settings.Surge, cordoned(e.State.Phase, e.Settings.Old),
			e.Settings.Surge, uncordons(e.State.Phase, e.Settings.Old))
	}
	return msg + "; the old pool's workloads have moved. up again finishes the rotation"
}

// uncordons says that a roll-back uncordons the old pool's nodes, when they were cordoned.
func uncordons(p Phase, old string) string {
	if p == Cordoned {
		return " and uncordons " + old + "'s nodes"
	}
	return ""
}

// orStart names the phase Start, which is "" in the record.
func orStart(p Phase) Phase {
	if p == Start {
		return "start"
	}
	return p
}

func cordoned(p Phase, old string) string {
	if p == Cordoned {
		return ", " + old + "'s nodes cordoned"
	}
	return ""
}

func (e *StoppedError) Unwrap() error { return e.Err }

// Run carries the plan out from st, recording each phase as it finishes; it returns the final
// state, or a StoppedError with the state it stopped at.
func (r *Rotator) Run(ctx context.Context, p Settings, st State) (State, error) {
	stop := func(err error) (State, error) { return st, &StoppedError{Settings: p, State: st, Err: err} }
	advance := func(next Phase) error {
		st.Phase = next
		return errors.Wrapf(r.Recorder.Save(ctx, st), "record phase %s", next)
	}
	if st.Hop >= p.hops() {
		return st, errors.Errorf("rotation of pool %s: hop %d recorded, the plan has %d", p.Old, st.Hop+1, p.hops())
	}
	if p.Mark == "" || st.ID == "" {
		// Without a mark a pool could only be found by its name, which anyone may have taken.
		return st, errors.Errorf("rotation of pool %s has no id or mark: it would find its pools by name alone", p.Old)
	}
	// from is the pool the hop drains, to the one it creates (the surge pool in the first hop).
	old := func() Pool {
		from, _ := p.Hop(st.Hop)
		return Pool{Name: from, Selector: r.Cloud.Selector(st.OldID, from)}
	}
	for st.Phase != Done {
		var err error
		_, to := p.Hop(st.Hop)
		switch st.Phase {
		case Start:
			if err = r.createSurge(ctx, p, &st, to); err == nil {
				err = advance(SurgeCreated)
			}
		case RollingBack:
			// A roll-back was stopped, and the manifest asks for the rotation again: the roll-back
			// is finished first (the surge pool it was deleting goes), then the rotation starts over.
			if err = r.deleteSurge(ctx, p, st); err == nil {
				st = State{ID: st.ID, OldID: st.OldID}
				err = errors.Wrap(r.Recorder.Save(ctx, st), "record the finished roll-back")
			}
		case SurgeCreated:
			surge := Pool{Name: to, Selector: r.Cloud.Selector(st.SurgeID, to)}
			if err = r.Nodes.WaitReady(ctx, surge, p.Nodes, p.ReadyTimeout); err == nil {
				err = advance(SurgeReady)
			}
		case SurgeReady:
			if err = r.Nodes.Cordon(ctx, old()); err == nil {
				err = advance(Cordoned)
			}
		case Cordoned:
			if err = r.Nodes.Drain(ctx, old(), p.Drain); err == nil {
				err = advance(Drained)
			}
		case Drained:
			if err = r.Cloud.Delete(ctx, st.OldID); err == nil {
				err = advance(OldDeleted)
			}
		case OldDeleted:
			if st.Hop+1 < p.hops() {
				// The next hop drains the pool this one created; its start is recorded by the
				// Start step, before its create.
				st = State{ID: st.ID, Hop: st.Hop + 1, OldID: st.SurgeID}
				break
			}
			if p.Final != "" {
				err = r.Cloud.Rename(ctx, st.SurgeID, p.Final)
			}
			if err == nil {
				err = advance(Done)
			}
		default:
			return st, errors.Errorf("rotation of pool %s: unknown phase %q recorded", p.Old, st.Phase)
		}
		var foreign *ForeignPoolError
		if errors.As(err, &foreign) {
			// Said as it is: the rotation stops before it made anything, and its own words say
			// what to do.
			return st, err
		}
		if err != nil {
			return stop(err)
		}
	}
	return st, nil
}

// createSurge creates the hop's new pool, to, and records its id in st.
//
// A create that was sent but not recorded left a pool carrying this rotation's mark: it is
// looked for first. So is a pool of the name that someone else made, which stops the rotation
// before it records anything: nothing was started, and status must not say otherwise. The record
// (with the rotation's id) is written before the create, so that a kill during the create leaves
// a record a resume or a roll-back reads.
func (r *Rotator) createSurge(ctx context.Context, p Settings, st *State, to string) error {
	id, err := r.Cloud.Find(ctx, to, p.Mark)
	if err != nil || id != "" {
		st.SurgeID = id
		return err
	}
	st.SurgeID = ""
	if err := r.Recorder.Save(ctx, *st); err != nil {
		return errors.Wrap(err, "record the rotation before its create")
	}
	st.SurgeID, err = r.Cloud.Create(ctx, to, p.Mark)
	return err
}

// Rollback undoes a rotation stopped before the old pool was deleted: the old pool's nodes
// uncordoned, the surge pool deleted, the state cleared. After that, the workloads have moved
// and only going on makes sense.
func (r *Rotator) Rollback(ctx context.Context, p Settings, st State) (State, error) {
	if st.Hop > 0 {
		return st, errors.Errorf("rotation of pool %s is in its second hop, past its first drain: up again finishes it; it cannot be rolled back",
			p.Old)
	}
	switch st.Phase {
	case Drained, OldDeleted, Done:
		return st, errors.Errorf("rotation of pool %s is past its drain (phase %s): up again finishes it; it cannot be rolled back",
			p.Old, st.Phase)
	}
	// Before the cordon nothing of the old pool changed: the cluster need not be asked.
	if st.Phase == Cordoned {
		if err := r.Nodes.Uncordon(ctx, Pool{Name: p.Old, Selector: r.Cloud.Selector(st.OldID, p.Old)}); err != nil {
			return st, errors.Wrapf(err, "uncordon pool %s", p.Old)
		}
	}
	// Recorded before the delete: a roll-back killed during it is known as one (RollingBack),
	// not read as a rotation with both pools in place.
	if st.Phase != RollingBack {
		st.Phase = RollingBack
		if err := r.Recorder.Save(ctx, st); err != nil {
			return st, errors.Wrap(err, "record the roll-back")
		}
	}
	if err := r.deleteSurge(ctx, p, st); err != nil {
		return st, &StoppedError{Settings: p, State: st, Err: err}
	}
	st = State{ID: st.ID, OldID: st.OldID}
	return st, errors.Wrap(r.Recorder.Save(ctx, st), "record the rollback")
}

// deleteSurge deletes the pool a stopped rotation created: by the id its record holds, else the
// pool of the surge name that carries the rotation's mark. A pool of that name without the mark
// is someone else's and stays: the rotation never created its own.
func (r *Rotator) deleteSurge(ctx context.Context, p Settings, st State) error {
	id := st.SurgeID
	if id == "" {
		var err error
		id, err = r.Cloud.Find(ctx, p.Surge, p.Mark)
		var foreign *ForeignPoolError
		if errors.As(err, &foreign) {
			return nil
		}
		if err != nil {
			return errors.Wrapf(err, "find pool %s", p.Surge)
		}
	}
	if id == "" {
		return nil
	}
	return errors.Wrapf(r.Cloud.Delete(ctx, id), "delete pool %s", p.Surge)
}

// ForeignPoolError: the cluster holds a pool of the name a rotation would create, which carries
// no mark of the rotation: someone else's pool, which the rotation neither takes nor deletes.
type ForeignPoolError struct {
	Cluster, Name, ID string
}

func (e *ForeignPoolError) Error() string {
	return fmt.Sprintf("cluster %s already has a node pool named %s (id %s) that this rotation did not create (it carries "+
		"no mark of the rotation): a rotation never takes a pool by its name alone, nor deletes one it did not make. "+
		"Rename or delete that pool yourself if it is not needed, then up again", e.Cluster, e.Name, e.ID)
}
