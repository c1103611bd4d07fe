package reconcile

import (
	"context"
	"fmt"
	"maps"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pkg/errors"
)

// ChangedOutsideAPI is the reason of Drifted=True for a stack whose last update or destroy was
// not a worker's: a `clusterplane up` or `destroy` of the same stack from the command line (or
// another tool) changed what the API's object deploys, which the cloud alone cannot show.
const ChangedOutsideAPI = "ChangedOutsideAPI"

// markPrefix starts the message every update a worker makes carries in the stack's history
// (markOf): the stack's history then says which updates the API made.
const markPrefix = "clusterplane serve: "

// markOf is the message of the updates a worker makes for o. It names the object, so that an
// update of another object (a stack made again by another replica's object) is not taken for
// this one's.
func markOf(o store.Object) string { return markPrefix + o.Type + " " + o.ID }

// ownership is what the stack's history says of the stack against the object's mark.
type ownership int

const (
	// unmarked: no worker recorded a mark (a stack deployed before marks were kept, or not yet
	// updated): the object's StackOwned alone says.
	unmarked ownership = iota
	// own: no update or destroy since the worker's last update.
	own
	// changed: the stack is the one the API made, updated (or refreshed into shape) since by
	// someone else.
	changed
	// gone: the stack was destroyed (or removed) outside the API and holds nothing.
	gone
	// lost: the stack was destroyed and made again outside the API, or its history no longer
	// holds the worker's update: it is not the object's to change or destroy.
	lost
)

// verdict is ownership with what says so.
type verdict struct {
	ownership
	stack string
	// last is the newest update or destroy not the API's (changed, gone, lost); nil when the
	// stack is gone from the backend altogether.
	last *stackstate.Update
	// why says it in words, for a condition's message and a refusal.
	why string
}

// ownershipOf reads the stack's history against the object's mark.
func (w *Worker) ownershipOf(ctx context.Context, o store.Object, key string) (verdict, error) {
	mark, marked, err := w.Store.Jobs().MarkOf(ctx, o.ID)
	if err != nil || !marked || key == "" {
		return verdict{stack: key}, err
	}
	b, err := w.Backend()
	if err != nil {
		return verdict{}, err
	}
	history, err := stackstate.History(ctx, b, key)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return verdict{ownership: gone, stack: key, why: "stack " + key + " was removed outside the API"}, nil
	}
	if err != nil {
		return verdict{}, err
	}
	return judge(o, key, mark.Version, history), nil
}

// judge says whose the stack is from its history (newest first) and the version of the
// worker's last update on it.
func judge(o store.Object, key string, version int, history []stackstate.Update) verdict {
	v := verdict{stack: key}
	var after []stackstate.Update // updates and destroys since the worker's, newest first
	ours := false
	for _, u := range history {
		if u.Version == version {
			ours = u.Message == markOf(o)
			break
		}
		if u.Operation == "update" || (u.Operation == "destroy" && u.Result == "succeeded") {
			after = append(after, u)
		}
	}
	if ours && len(after) == 0 {
		v.ownership = own
		return v
	}
	if len(after) > 0 {
		v.last = &after[0]
	}
	destroyed := -1
	for i, u := range after {
		if u.Operation == "destroy" {
			destroyed = i
			break
		}
	}
	switch {
	case v.last != nil && v.last.Operation == "destroy":
		v.ownership, v.why = gone, "stack "+key+" was destroyed outside the API ("+said(*v.last)+")"
	case !ours:
		// The history has no update of the worker's at its number: the stack was removed and
		// made again (its history starts anew), or it names another object.
		v.ownership, v.why = lost, "stack "+key+" was made again outside the API: its history no longer holds the update "+
			fmt.Sprint(version)+" the API made"
		if v.last != nil {
			v.why += "; its last is " + said(*v.last)
		}
	case destroyed >= 0:
		v.ownership, v.why = lost, "stack "+key+" was destroyed ("+said(after[destroyed])+") and made again ("+said(*v.last)+") outside the API"
	default:
		v.ownership, v.why = changed, "stack "+key+" was changed outside the API since its update "+fmt.Sprint(version)+
			" ("+said(*v.last)+"): the API's spec is no longer what the stack deploys; update the object to deploy its spec again"
	}
	return v
}

// said is an update as the history says it: its operation, number, end and who ran it.
func said(u stackstate.Update) string {
	text := fmt.Sprintf("%s %d", u.Operation, u.Version)
	if u.Result != "" && u.Result != "succeeded" {
		text += " " + u.Result
	}
	if u.Ended != "" {
		text += " ended " + u.Ended
	}
	if u.By != "" {
		text += " by " + u.By
	}
	return text
}

// guard is the worker's check before it changes or destroys a stack it made: a stack made again
// outside the API is refused (recorded, so that the API refuses its DELETE too), and a deleted
// object whose stack is gone is forgotten without running anything. done tells that the job is
// over.
func (w *Worker) guard(ctx context.Context, o store.Object, t deploytarget.Target) (done bool, err error) {
	if !o.StackOwned {
		return false, nil // taken says
	}
	v, err := w.ownershipOf(ctx, o, t.Key())
	if err != nil {
		return false, nil // the pipeline says what keeps it from the stack
	}
	switch {
	case v.ownership == lost:
		if err := w.Store.Jobs().LoseStack(ctx, o.ID, v.why); err != nil {
			return true, err
		}
		what := "changes"
		if o.Deleting {
			what = "destroys"
		}
		return true, w.setStatus(ctx, o, refused("Refused", v.why+". The API "+what+" only stacks it made; it leaves this one "+
			"alone. Destroy it with clusterplane destroy if it is to go: the "+o.Type+" can then be deleted"))
	case v.ownership == gone && o.Deleting:
		return true, w.Store.Objects().Forget(ctx, o.ID)
	case v.ownership != unmarked:
		// The stack is the object's again (destroyed outside since a check found it lost).
		return false, w.Store.Jobs().LoseStack(ctx, o.ID, "")
	}
	return false, nil
}

// remember records the worker's update of the stack: the newest update in its history, when it
// carries the object's mark. An up that ran no engine (the stack already as asked) leaves the
// mark as it was.
func (w *Worker) remember(ctx context.Context, o store.Object, t deploytarget.Target) error {
	key := t.Key()
	b, err := w.Backend()
	if err != nil {
		return err
	}
	history, err := stackstate.History(ctx, b, key)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, u := range history {
		if u.Operation == "update" {
			if u.Message == markOf(o) {
				return w.Store.Jobs().MarkStack(ctx, o.ID, key, u.Version)
			}
			return nil
		}
	}
	return nil
}

// owned is what a check says of the stack's owner, put into its Drifted condition and metadata:
// a stack changed, destroyed or made again outside the API is Drifted=True, ChangedOutsideAPI,
// whatever the cloud says (the cloud matches a stack that is no longer the API's spec), with
// who and when in the metadata and the nodes the stack now holds. The store records whether the
// stack is still the object's, which the API's DELETE reads.
func (w *Worker) owned(ctx context.Context, o store.Object, t deploytarget.Target, drifted store.Condition, report *outcome.StackStatus) (store.Condition, map[string]any, error) {
	v, err := w.ownershipOf(ctx, o, t.Key())
	if err != nil {
		return drifted, nil, nil // the check's own condition stands; the next one reads again
	}
	if v.ownership == unmarked {
		return drifted, nil, nil
	}
	// Whether the stack is still the object's comes from its history alone, and the API's
	// DELETE reads it: it is recorded whatever the check could read of the stack.
	why := ""
	if v.ownership == lost {
		why = v.why
	}
	if err := w.Store.Jobs().LoseStack(ctx, o.ID, why); err != nil {
		return drifted, nil, err
	}
	if v.ownership == own {
		return drifted, map[string]any{"changed_outside_api": nil}, nil
	}
	if outrun(report, v) {
		return drifted, nil, errOutrun
	}
	if unread(report, v) {
		return drifted, nil, nil
	}
	message := v.why
	if drifted.Status == "True" {
		message += "; the cloud differs too: " + drifted.Message
	}
	change := map[string]any{"stack": v.stack, "remade": v.ownership == lost, "destroyed": v.ownership == gone}
	if v.last != nil {
		change["operation"], change["version"], change["at"] = v.last.Operation, v.last.Version, v.last.Ended
		if v.last.By != "" {
			change["by"] = v.last.By
		}
	}
	md := map[string]any{"changed_outside_api": change}
	if report != nil && v.ownership != gone {
		// What the stack holds now, not what the worker's last deploy left: its outputs, and a
		// pool's nodes as they list them.
		md["outputs"] = report.Outputs
		if k, ok := w.Kinds.ByName(t.Name); ok && k.Nodes != "" {
			if nodes, ok := report.Outputs[k.Nodes].([]any); ok {
				md["active_nodes"] = len(nodes)
			}
		}
	}
	return condition("Drifted", "True", ChangedOutsideAPI, message), md, nil
}

// errOutrun: the stack was changed outside the API while the check read it, so the check's
// outputs are older than the verdict. Nothing is written; the next check reads both afresh.
var errOutrun = errors.New("the stack changed while the check read it")

// outrun says the check's report was read before the update the verdict names: a
// `clusterplane up` that ran beside the check. Its outputs and node count would then be the
// stack's before that up, reported as what the up left.
func outrun(report *outcome.StackStatus, v verdict) bool {
	return report != nil && report.LastUpdate != nil && v.last != nil && report.LastUpdate.Version > 0 &&
		report.LastUpdate.Version < v.last.Version
}

// unread says the check could not read the stack (the change outside the API still held its
// lock, or the cloud did not answer) although the verdict names a stack that is still there. The
// check then reports that it did not run, and leaves the metadata as it was: a verdict of a
// change beside the nodes of before it would say the change left them. The next check that
// reads the stack reports both.
func unread(report *outcome.StackStatus, v verdict) bool {
	return report == nil && v.ownership != gone
}

// withMetadata is the check's edit (checked) that also sets the metadata md says: a key whose
// value is nil is removed.
func withMetadata(edit func(store.Object, *store.ControllerStatus) (store.ControllerStatus, bool), md map[string]any) func(store.Object, *store.ControllerStatus) (store.ControllerStatus, bool) {
	return func(now store.Object, prior *store.ControllerStatus) (store.ControllerStatus, bool) {
		st, write := edit(now, prior)
		if !write || md == nil {
			return st, write
		}
		st.Metadata = maps.Clone(st.Metadata)
		if st.Metadata == nil {
			st.Metadata = map[string]any{}
		}
		for k, v := range md {
			if v == nil {
				delete(st.Metadata, k)
				continue
			}
			st.Metadata[k] = v
		}
		return st, true
	}
}
