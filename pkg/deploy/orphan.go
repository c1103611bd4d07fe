package deploy

import (
	"context"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// orphans lists the pools of t's cluster that are orphans of t's rotations. None for a kind
// without rotations, or a stack that holds nothing yet.
func (d *Deployer) orphans(ctx context.Context, t deploytarget.Target, st stackstate.State) ([]outcome.Orphan, error) {
	rec, _ := rotationrun.RecordedRotation(st.Outputs())
	// Only a pool whose rollout block allows rotation is ever rotated (or one with a rotation
	// recorded): the cloud is asked for no other stack's pools.
	if t.Rotate == nil || rec == nil && !rotation.AllowsRotation(t.Effects, t.Input) {
		return nil, nil
	}
	ids, _ := st.IDs(deploytarget.GuardedType(t.Effects))
	if len(ids) != 1 || ids[0] == "" {
		return nil, nil
	}
	self := ids[0]
	kr, err := t.Rotate(ctx, t.Input, self, createguard.New(d.Backend).Resolve)
	if err != nil {
		return nil, errors.Wrap(err, "look for pools left by a rotation")
	}
	marked, err := kr.Cloud.Marked(ctx)
	if err != nil {
		return nil, errors.Wrap(err, "look for pools left by a rotation")
	}
	stack := rotation.StackDigest(t.Key())
	var out []outcome.Orphan
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
		o := outcome.Orphan{ID: p.ID, Name: p.Name}
		if kr.DeleteCommand != nil {
			o.Delete = kr.DeleteCommand(p.ID)
		}
		out = append(out, o)
	}
	return out, nil
}

// describeOrphans says orphans in one sentence each.
func describeOrphans(orphans []outcome.Orphan) string {
	var parts []string
	for _, o := range orphans {
		parts = append(parts, o.String())
	}
	return strings.Join(parts, "; ")
}
