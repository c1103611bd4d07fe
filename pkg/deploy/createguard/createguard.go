// Package createguard is what up and preview do around a create: look for what the cloud already
// holds under a new stack's names and refuse to create beside it, name what a failed create left
// in the cloud, and take back what carries the stack's own mark (package stackmark), which only
// the stack's own create can have made.
package createguard

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// Creating is what up and preview do before a create. It holds the backend only: the other
// stacks it asks which of them holds what the cloud has, and the references it resolves.
type Creating struct{ backend stackstate.Backend }

// New is the creating step of stacks in backend b.
func New(b stackstate.Backend) Creating {
	return Creating{backend: b}
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
	// ElsewhereMarked says that one of Live carries the mark of this stack in another backend
	// (package stackmark): a state folder or database other than this one deployed it.
	ElsewhereMarked bool
}

func (e *ExistingError) Error() string {
	if e.ManagedBy != "" {
		return "the cloud already holds " + stackstate.DescribeLive(e.Live) + ", which stack " + e.ManagedBy +
			" manages: give this manifest another " + e.nameField() + ", or change " + e.ManagedBy + "'s manifest instead"
	}
	if e.ElsewhereMarked {
		return "the cloud already holds " + stackstate.DescribeLive(e.Live) + ", which carries the mark of this stack in " +
			"another backend (another state folder or database deployed it), and a create would make one more: run clusterplane " +
			"with that backend (PULUMI_BACKEND_URL), or give this manifest another " + e.nameField() + ". Adopting it here " +
			"would leave it in two backends' hands: to move the stack to this backend, adopt it here only once that " +
			"backend's stack no longer holds it (`pulumi state delete` there, or destroy that stack's record)"
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
func (d Creating) existing(ctx context.Context, t deploytarget.Target, live []kinds.Live) outcome.Outcome {
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
	if d.backend != nil {
		ours := stackmark.Of(d.backend.ID(), t.Key())
		for _, l := range live {
			for _, m := range stackmark.In(l.Tags) {
				e.ElsewhereMarked = e.ElsewhereMarked || m.Stack == ours.Stack && m.Backend != ours.Backend
			}
		}
	}
	o := outcome.Refused(e)
	if e.ManagedBy == "" {
		o.Unmanaged = live
	}
	return o
}

// GuardsCreate tells whether up, after the preview res of existing stack s, would look for the
// cloud's own cluster (node pool) of the manifest's name before creating one, as GuardCreate does:
// the preview creates one and the stack holds none (a renamed manifest's create comes with the
// delete of the one the stack holds). The state is read only when the preview creates one.
func (d Creating) GuardsCreate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, res stackstate.Result) (bool, error) {
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

// OwnIDs are the ids of the cluster (node pool) stack s holds.
func OwnIDs(ctx context.Context, t deploytarget.Target, s stackstate.Stack) ([]string, error) {
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	ids, _ := st.IDs(deploytarget.GuardedType(t.Effects))
	return ids, nil
}

// LookBeforeCreate asks the cloud, as Up does before it creates, whether it already holds the
// cluster (node pool) of the target's name: then the create is refused (blocked). unchecked says
// why the cloud was not looked at, "" when it was. own are the ids the stack itself holds, which
// a retargeted stack deletes (--retarget with the cloud name kept): they are not in the way.
func (d Creating) LookBeforeCreate(ctx context.Context, t deploytarget.Target, own ...string) (blocked *outcome.Outcome, unchecked string, err error) {
	found, err := d.lookBefore(ctx, t, own)
	if err != nil || len(found.Live) == 0 {
		return nil, found.Unchecked, err
	}
	o := d.existing(ctx, t, found.Live)
	return &o, "", nil
}

// LookBeforeFirstCreate is LookBeforeCreate for a stack that holds no cluster (node pool) yet,
// which may take back what its own earlier create left (takeBack, not refused): the one cluster
// (node pool) of the name the cloud holds when it carries the stack's mark (TakenBack).
func (d Creating) LookBeforeFirstCreate(ctx context.Context, t deploytarget.Target) (blocked *outcome.Outcome, takeBack *kinds.Live, unchecked string, err error) {
	found, err := d.lookBefore(ctx, t, nil)
	if err != nil || len(found.Live) == 0 {
		return nil, nil, found.Unchecked, err
	}
	if takeBack = d.ownMade(ctx, t, found.Live); takeBack != nil {
		return nil, takeBack, "", nil
	}
	o := d.existing(ctx, t, found.Live)
	return &o, nil, "", nil
}

// lookBefore is what the target's look-up finds of its name, but the ids in own.
func (d Creating) lookBefore(ctx context.Context, t deploytarget.Target, own []string) (kinds.Found, error) {
	if t.Lookup == nil || deploytarget.GuardedType(t.Effects) == "" {
		return kinds.Found{}, nil
	}
	found, err := t.Lookup(ctx, t.Input, d.Resolve)
	if err != nil {
		return kinds.Found{}, err
	}
	found.Live = slices.DeleteFunc(found.Live, func(l kinds.Live) bool {
		// A Civo pool's state id is its name; its look-up names it CLUSTER_ID:NAME, the id its
		// Read also takes.
		return slices.ContainsFunc(own, func(id string) bool { return l.ID == id || strings.HasSuffix(l.ID, ":"+id) })
	})
	return found, nil
}

// ownMade is the one of live that the target's stack itself made: live holds exactly one, and it
// carries the stack's mark in this backend, which only the stack's own create sends. nil for
// anything else: none, several (which one is the stack's is not known), one unmarked (made in a
// console), one carrying another stack's mark, or one another stack of the kind holds (adopted
// there with this stack's mark still on it), or when the other stacks cannot be read to know.
func (d Creating) ownMade(ctx context.Context, t deploytarget.Target, live []kinds.Live) *kinds.Live {
	if len(live) != 1 || d.backend == nil || !slices.Contains(stackmark.In(live[0].Tags), stackmark.Of(d.backend.ID(), t.Key())) {
		return nil
	}
	held, err := deploytarget.HeldIDs(ctx, d.backend, t)
	if err != nil {
		return nil
	}
	if key := held[live[0].ID]; key != "" && key != t.Key() {
		return nil
	}
	return &live[0]
}

// TakenBack is what an outcome's reason says of a cluster (node pool) the stack took back.
func TakenBack(l kinds.Live) string {
	return "took back " + stackstate.DescribeLive([]kinds.Live{l}) + ", which a create of this stack made without " +
		"its record (its answer lost, or the read after it failed): it carries the stack's mark"
}

// TakeBackUnconfirmed is up's reason when it would take back l but was not confirmed beforehand
// (--yes): the take-back writes the stack before any question could be asked.
func TakeBackUnconfirmed(l kinds.Live) string {
	return "not confirmed: " + stackstate.DescribeLive([]kinds.Live{l}) + " carries this stack's mark (an earlier create of " +
		"the stack made it); up --yes takes it back into the stack, instead of creating one"
}

// WouldTakeBack is what a preview's reason adds when up would take back l (ownMade) instead of
// creating one; "" for nil.
func WouldTakeBack(l *kinds.Live) string {
	if l == nil {
		return ""
	}
	return "; up takes back " + stackstate.DescribeLive([]kinds.Live{*l}) + " instead of creating one: an earlier " +
		"create of this stack made it, and it carries the stack's mark"
}

// NotChecked is what an outcome's reason adds when the cloud was not looked at (unchecked says
// why), "" when it was.
func NotChecked(unchecked string) string {
	if unchecked == "" {
		return ""
	}
	return " (not checked for an existing one of the name: " + unchecked + ")"
}

// lookupTimeout bounds a look-up after a failure or an interruption, whose own context has ended.
const lookupTimeout = 30 * time.Second

// Guard keeps Up from creating a cluster or node pool the cloud already holds under its
// name, and names what a failed create left behind.
type Guard struct {
	// creating looks again, after a failed create, for what it left in the cloud.
	creating Creating
	t        deploytarget.Target
	s        stackstate.Stack
	// typ is the type of the resource whose create is planned; "" when none is (the stack holds
	// it already, or the kind has no look-up).
	typ string
	// note says why the cloud was not looked at, for the outcome's reason.
	note string
	// TakeBack is what the cloud holds under the name that the stack's own earlier create made
	// (ownMade): up takes it into the stack before it runs the engine, which then creates none.
	TakeBack *kinds.Live
}

// GuardCreate looks, when the stack holds no cluster (node pool) and Up would create one, for one
// of the same name where the manifest puts it: found, Up is refused (Blocked) naming its ids and
// the adopt command, unless it is the stack's own (Guard.TakeBack). An error is a look-up that
// failed: not knowing whether the cloud holds one, nothing is to be created.
func (d Creating) GuardCreate(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State) (*Guard, *outcome.Outcome, error) {
	g := &Guard{creating: d, t: t, s: s}
	typ := deploytarget.GuardedType(t.Effects)
	if _, held := st.IDs(typ); t.Lookup == nil || typ == "" || held {
		return g, nil, nil
	}
	g.typ = typ
	blocked, takeBack, unchecked, err := d.LookBeforeFirstCreate(ctx, t)
	if err != nil {
		return g, nil, err
	}
	g.note, g.TakeBack = unchecked, takeBack
	return g, blocked, nil
}

// Done is a successful up's outcome, with the note of what was not looked at.
func (g *Guard) Done(o outcome.Outcome) outcome.Outcome {
	o.Reason += NotChecked(g.note)
	return o
}

// Failed is a failed up's outcome, naming what the failed create left in the cloud; unless what it
// left is the stack's own (ownMade), which takeBack is and the outcome does not name: up takes it
// into the stack and goes on.
func (g *Guard) Failed(ctx context.Context, o outcome.Outcome) (_ outcome.Outcome, takeBack *kinds.Live) {
	if g.typ == "" {
		return o, nil
	}
	// An up interrupted or out of time says what it left and how to recover, and takes nothing.
	interrupted := ctx.Err() != nil
	if lists := runlist.Of(ctx); lists != nil {
		// What the failed create made is in no list of the run made before it.
		lists.Forget()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
	st, err := g.s.State(ctx)
	if err != nil {
		return o, nil
	}
	left := g.creating.LeftBehind(ctx, g.t, st)
	if !interrupted && len(st.PendingCreates()) == 0 {
		if takeBack = g.creating.ownMade(ctx, g.t, left); takeBack != nil {
			return o, takeBack
		}
	}
	if len(left) > 0 {
		o.Unmanaged = left
		o.Err = &outcome.LeftBehindError{Cause: o.Err, File: g.t.File, Live: left}
	}
	return o, nil
}

// Lookup is one answer of the cloud about the target's name: what it holds that the stack does
// not (live), and whether it was asked and answered (looked). One command asks once.
type Lookup struct {
	Live   []kinds.Live
	Looked bool
}

// LeftBehind are the target's cluster (node pool) of its name that the cloud holds and the state
// does not; none when the kind has no look-up or the cloud cannot be asked.
func (d Creating) LeftBehind(ctx context.Context, t deploytarget.Target, st stackstate.State) []kinds.Live {
	return d.Look(ctx, t, st).Live
}

// Look asks the cloud what it holds of the target's name that the state does not: a kind without
// a look-up, a manifest without a token or a cloud that does not answer leave it not looked.
func (d Creating) Look(ctx context.Context, t deploytarget.Target, st stackstate.State) *Lookup {
	typ := deploytarget.GuardedType(t.Effects)
	if t.Lookup == nil || typ == "" {
		return &Lookup{}
	}
	found, err := t.Lookup(ctx, t.Input, d.Resolve)
	if err != nil || found.Unchecked != "" {
		return &Lookup{}
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
	return &Lookup{Live: out, Looked: true}
}

// Resolve reads a reference from the stack it names, through the backend.
func (d Creating) Resolve(ctx context.Context, ref *sharedv1.StringValueOrRef, defaultOutput string) (string, error) {
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

// LeftInStatus adds to a Ready condition of a failed last update what a failed create left in
// the cloud: only then does status look at the cloud. The answer is returned (nil when the cloud
// was not asked) so that status does not ask twice.
func (d Creating) LeftInStatus(ctx context.Context, t deploytarget.Target, st stackstate.State, ready outcome.Condition) (outcome.Condition, *Lookup) {
	typ := deploytarget.GuardedType(t.Effects)
	if _, held := st.IDs(typ); held || !ready.Reason.LastNotSucceeded() {
		return ready, nil
	}
	answer := d.Look(ctx, t, st)
	if len(answer.Live) > 0 {
		ready.Message += "; it left " + stackstate.DescribeLive(answer.Live) + " in the cloud, which the stack does not hold. " + outcome.AdoptAdvice(t.File, answer.Live)
	}
	return ready, answer
}
