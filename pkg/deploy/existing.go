package deploy

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// creating is what up and preview do before a create: look for what the cloud already holds
// under a new stack's names and refuse to create beside it. It holds the backend only: the other
// stacks it asks which of them holds what the cloud has, and the references it resolves.
type creating struct{ backend stackstate.Backend }

// newCreating is the deployer's creating step.
func newCreating(d *Deployer) creating {
	return creating{backend: d.Backend}
}

// ExistingError refuses to create what the cloud already holds under the manifest's name and
// the stack does not: a cluster made outside clusterplane, or left by a create that failed after
// the cloud had carried it out. Another create would make one more.
type ExistingError struct {
	File string
	Live []kinds.Live
	// ManagedBy is the key of another stack of the kind that holds it, "" when none does: adopting
	// it would take it from that stack.
	ManagedBy string
	// NameField is the manifest's field that names it in the cloud ("spec.clusterName").
	NameField string
}

func (e *ExistingError) Error() string {
	if e.ManagedBy != "" {
		return "the cloud already holds " + stackstate.DescribeLive(e.Live) + ", which stack " + e.ManagedBy +
			" manages: give this manifest another " + e.nameField() + ", or change " + e.ManagedBy + "'s manifest instead"
	}
	return "the cloud already holds " + stackstate.DescribeLive(e.Live) + ", which the stack does not hold, " +
		"and a create would make one more. " + outcome.AdoptAdvice(e.File, e.Live)
}

// nameField names the field a manifest names the cloud's cluster or pool with.
func (e *ExistingError) nameField() string {
	if e.NameField == "" {
		return "name in the cloud"
	}
	return e.NameField + " (its name in the cloud)"
}

// existing refuses to create what the cloud holds under the target's name (live). It names the
// stack of the kind that manages it when one does, since the adopt command would then refuse.
func (d creating) existing(ctx context.Context, t deploytarget.Target, live []kinds.Live) outcome.Outcome {
	e := &ExistingError{File: t.File, Live: live, NameField: stackinput.CloudName(t.Input)}
	// Not knowing the other stacks (a backend that cannot list them) still refuses the create.
	if held, err := deploytarget.HeldIDs(ctx, d.backend, t); err == nil {
		for _, l := range live {
			if key := held[l.ID]; key != "" && key != t.Key() {
				e.ManagedBy = key
				break
			}
		}
	}
	o := outcome.Refused(e)
	if e.ManagedBy == "" {
		o.Unmanaged = live
	}
	return o
}

// guardsCreate tells whether up, after the preview res of existing stack s, would look for the
// cloud's own cluster (node pool) of the manifest's name before creating one, as guardCreate does:
// the preview creates one and the stack holds none (a renamed manifest's create comes with the
// delete of the one the stack holds). The state is read only when the preview creates one.
func (d creating) guardsCreate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result) (bool, error) {
	typ := deploytarget.GuardedType(t.Effects)
	if t.Lookup == nil || typ == "" || !slices.ContainsFunc(res.Steps, func(s stackstate.Step) bool {
		return s.Type == typ && s.Action == string(apitype.OpCreate)
	}) {
		return false, nil
	}
	st, err := s.State(ctx)
	if err != nil {
		return false, err
	}
	_, held := st.IDs(typ)
	return !held, nil
}

// ownIDs are the ids of the cluster (node pool) stack s holds.
func ownIDs(ctx context.Context, t deploytarget.Target, s stackstate.Stack) ([]string, error) {
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	ids, _ := st.IDs(deploytarget.GuardedType(t.Effects))
	return ids, nil
}

// lookBeforeCreate asks the cloud, as Up does before it creates, whether it already holds the
// cluster (node pool) of the target's name: then the create is refused (blocked). unchecked says
// why the cloud was not looked at, "" when it was. own are the ids the stack itself holds, which
// a retargeted stack deletes (--retarget with the cloud name kept): they are not in the way.
func (d creating) lookBeforeCreate(ctx context.Context, t deploytarget.Target, own ...string) (blocked *outcome.Outcome, unchecked string, err error) {
	if t.Lookup == nil || deploytarget.GuardedType(t.Effects) == "" {
		return nil, "", nil
	}
	found, err := t.Lookup(ctx, t.Input, d.resolve)
	if err != nil {
		return nil, "", err
	}
	found.Live = slices.DeleteFunc(found.Live, func(l kinds.Live) bool {
		// A Civo pool's state id is its name; its look-up names it CLUSTER_ID:NAME, the id its
		// Read also takes.
		return slices.ContainsFunc(own, func(id string) bool { return l.ID == id || strings.HasSuffix(l.ID, ":"+id) })
	})
	if len(found.Live) > 0 {
		o := d.existing(ctx, t, found.Live)
		return &o, "", nil
	}
	return nil, found.Unchecked, nil
}

// notChecked is what an outcome's reason adds when the cloud was not looked at (unchecked says
// why), "" when it was.
func notChecked(unchecked string) string {
	if unchecked == "" {
		return ""
	}
	return " (not checked for an existing one of the name: " + unchecked + ")"
}

// lookupTimeout bounds a look-up after a failure or an interruption, whose own context has ended.
const lookupTimeout = 30 * time.Second

// createGuard keeps Up from creating a cluster or node pool the cloud already holds under its
// name, and names what a failed create left behind.
type createGuard struct {
	// creating looks again, after a failed create, for what it left in the cloud.
	creating creating
	t        deploytarget.Target
	s        stackstate.Stack
	// typ is the type of the resource whose create is planned; "" when none is (the stack holds
	// it already, or the kind has no look-up).
	typ string
	// note says why the cloud was not looked at, for the outcome's reason.
	note string
}

// guardCreate looks, when the stack holds no cluster (node pool) and Up would create one, for one
// of the same name where the manifest puts it: found, Up is refused (Blocked) naming its ids and
// the adopt command.
func (d creating) guardCreate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State) (*createGuard, *outcome.Outcome) {
	g := &createGuard{creating: d, t: t, s: s}
	typ := deploytarget.GuardedType(t.Effects)
	if _, held := st.IDs(typ); t.Lookup == nil || typ == "" || held {
		return g, nil
	}
	g.typ = typ
	blocked, unchecked, err := d.lookBeforeCreate(ctx, t)
	if err != nil {
		// Not knowing whether the cloud holds one, nothing is created.
		o := failed(err)
		return g, &o
	}
	g.note = unchecked
	return g, blocked
}

// done is a successful up's outcome, with the note of what was not looked at.
func (g *createGuard) done(o outcome.Outcome) outcome.Outcome {
	o.Reason += notChecked(g.note)
	return o
}

// failed is a failed up's outcome, naming what the failed create left in the cloud.
func (g *createGuard) failed(ctx context.Context, o outcome.Outcome) outcome.Outcome {
	if g.typ == "" {
		return o
	}
	if lists := runlist.Of(ctx); lists != nil {
		// What the failed create made is in no list of the run made before it.
		lists.Forget()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
	st, err := g.s.State(ctx)
	if err != nil {
		return o
	}
	left := g.creating.leftBehind(ctx, g.t, st)
	if len(left) > 0 {
		o.Unmanaged = left
		o.Err = &outcome.LeftBehindError{Cause: o.Err, File: g.t.File, Live: left}
	}
	return o
}

// lookup is one answer of the cloud about the target's name: what it holds that the stack does
// not (live), and whether it was asked and answered (looked). One command asks once.
type lookup struct {
	live   []kinds.Live
	looked bool
}

// leftBehind are the target's cluster (node pool) of its name that the cloud holds and the state
// does not; none when the kind has no look-up or the cloud cannot be asked.
func (d creating) leftBehind(ctx context.Context, t deploytarget.Target, st stackstate.State) []kinds.Live {
	return d.look(ctx, t, st).live
}

// look asks the cloud what it holds of the target's name that the state does not: a kind without
// a look-up, a manifest without a token or a cloud that does not answer leave it not looked.
func (d creating) look(ctx context.Context, t deploytarget.Target, st stackstate.State) *lookup {
	typ := deploytarget.GuardedType(t.Effects)
	if t.Lookup == nil || typ == "" {
		return &lookup{}
	}
	found, err := t.Lookup(ctx, t.Input, d.resolve)
	if err != nil || found.Unchecked != "" {
		return &lookup{}
	}
	held, _ := st.IDs(typ)
	var out []kinds.Live
	for _, l := range found.Live {
		own := false
		for _, id := range held {
			own = own || id != "" && (l.ID == id || strings.HasSuffix(l.ID, ":"+id) || strings.HasSuffix(id, ":"+l.ID))
		}
		if !own {
			out = append(out, l)
		}
	}
	return &lookup{live: out, looked: true}
}

// resolve reads a reference from the stack it names, through the backend.
func (d creating) resolve(ctx context.Context, ref *sharedv1.StringValueOrRef, defaultOutput string) (string, error) {
	from := ref.GetValueFrom()
	if from == nil {
		return ref.GetValue(), nil
	}
	project, stack, _ := strings.Cut(reference.Key(from), "/")
	s, err := d.backend.Open(ctx, project, stack, nil)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return "", nil
	}
	if err != nil {
		return "", errors.Wrapf(err, "read stack %s/%s", project, stack)
	}
	defer s.Close()
	outputs, err := s.Outputs(ctx)
	if err != nil {
		return "", errors.Wrapf(err, "read the outputs of stack %s/%s", project, stack)
	}
	v, _ := outputs[reference.OutputName(from, defaultOutput)].Value.(string)
	return v, nil
}

// leftInStatus adds to a Ready condition of a failed last update what a failed create left in
// the cloud: only then does status look at the cloud. The answer is returned (nil when the cloud
// was not asked) so that status does not ask twice.
func (d creating) leftInStatus(ctx context.Context, t deploytarget.Target, st stackstate.State, ready outcome.Condition) (outcome.Condition, *lookup) {
	typ := deploytarget.GuardedType(t.Effects)
	if _, held := st.IDs(typ); held || !ready.Reason.LastNotSucceeded() {
		return ready, nil
	}
	answer := d.look(ctx, t, st)
	if len(answer.live) > 0 {
		ready.Message += "; it left " + stackstate.DescribeLive(answer.live) + " in the cloud, which the stack does not hold. " + outcome.AdoptAdvice(t.File, answer.live)
	}
	return ready, answer
}
