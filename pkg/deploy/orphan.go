package deploy

import (
	"context"
	"fmt"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Orphan is a pool in the stack's cluster that carries a rotation mark of the stack and that the
// stack does not hold, nor a rotation under way: left behind by a rotation that stopped where no
// record could follow it (a pool made by a clusterplane older than the marks' record, a record
// removed by hand). It is billed, and no up or destroy of the stack would ever touch it.
type Orphan struct {
	ID, Name string
	// Delete is the command that deletes it (the cloud's own CLI).
	Delete string
}

func (o Orphan) String() string {
	return fmt.Sprintf("pool %s (id %s) carries this stack's rotation mark, but neither the stack nor a rotation under way "+
		"holds it: a stopped rotation left it, and it is billed; delete it with `%s`", o.Name, o.ID, o.Delete)
}

// orphans lists the pools of t's cluster that are orphans of t's rotations. None for a kind
// without rotations, or a stack that holds nothing yet.
func (d *Deployer) orphans(ctx context.Context, t deploytarget.Target, st stackstate.State) ([]Orphan, error) {
	rec, _ := rotationRecord(st.Outputs())
	// Only a pool whose rollout block allows rotation is ever rotated (or one with a rotation
	// recorded): the cloud is asked for no other stack's pools.
	if t.Rotate == nil || rec == nil && !rotation.AllowsRotation(t.Effects, t.Input) {
		return nil, nil
	}
	ids, _ := st.IDs(guardedType(t.Effects))
	if len(ids) != 1 || ids[0] == "" {
		return nil, nil
	}
	self := ids[0]
	kr, err := t.Rotate(ctx, t.Input, self, d.resolve)
	if err != nil {
		return nil, errors.Wrap(err, "look for pools left by a rotation")
	}
	marked, err := kr.Cloud.Marked(ctx)
	if err != nil {
		return nil, errors.Wrap(err, "look for pools left by a rotation")
	}
	stack := rotation.StackDigest(t.Key())
	var out []Orphan
	for _, p := range marked {
		if p.Mark.Stack != stack {
			continue
		}
		// The stack's own pool (a Civo pool keeps the mark of the rotation that made it; its
		// state's id is CLUSTER_ID:POOL_NAME), and the pools of a rotation under way.
		if p.ID == self || strings.HasSuffix(self, ":"+p.ID) {
			continue
		}
		if rec != nil && rec.Phase != rotation.Done && (rec.ID == p.Mark.ID || p.ID == rec.SurgeID || p.ID == rec.OldID) {
			continue
		}
		o := Orphan{ID: p.ID, Name: p.Name}
		if kr.DeleteCommand != nil {
			o.Delete = kr.DeleteCommand(p.ID)
		}
		out = append(out, o)
	}
	return out, nil
}

// describeOrphans says orphans in one sentence each.
func describeOrphans(orphans []Orphan) string {
	var parts []string
	for _, o := range orphans {
		parts = append(parts, o.String())
	}
	return strings.Join(parts, "; ")
}
