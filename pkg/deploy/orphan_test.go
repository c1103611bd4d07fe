package deploy_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// markedPools is a cluster's pool API that only lists the marked pools.
type markedPools struct {
	kinds.Pools
	marked []rotation.MarkedPool
}

func (m markedPools) Marked(context.Context) ([]rotation.MarkedPool, error) { return m.marked, nil }

// Promise: orphan-pools-reported
func TestDriftAndStatusReportAPoolThatCarriesTheStacksMarkButThatNoOneHolds(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	c := namedCluster(t, "platform", "prod", "")
	mustUp(ctx, t, d, c)
	p := target(t, "workers.yaml", poolText("workers", "platform", "prod")+
		"  rollout:\n    strategy: ROTATE\n")
	mustUp(ctx, t, d, p)

	ours := rotation.NewMark(p.Key(), rotation.NewID())
	theirs := rotation.NewMark("digitaloceankubernetesnodepool/other-prod", rotation.NewID())
	var self string
	p.Rotate = func(_ context.Context, _ proto.Message, id string, _ kinds.Resolve) (*kinds.Rotation, error) {
		self = id
		return &kinds.Rotation{
			Cloud: markedPools{marked: []rotation.MarkedPool{
				{ID: "left-id", Name: "workers-surge", Mark: ours},
				{ID: "other-id", Name: "other-surge", Mark: theirs},
			}},
			DeleteCommand: func(id string) string { return "doctl kubernetes cluster node-pool delete platform-id " + id },
		}, nil
	}
	o := d.Drift(ctx, p)
	if o.Status != outcome.Drifted || len(o.Orphans) != 1 || o.Orphans[0].ID != "left-id" {
		t.Fatalf("drift with a pool left by a rotation: %s %+v, want it reported alone", o.Status, o.Orphans)
	}
	for _, want := range []string{"workers-surge", "left-id", "doctl kubernetes cluster node-pool delete platform-id left-id"} {
		if !strings.Contains(o.Reason, want) {
			t.Errorf("drift says %q, want %q in it", o.Reason, want)
		}
	}
	if self == "" {
		t.Error("the kind was not told the stack's own pool")
	}
	st := d.Status(ctx, p, deploy.StatusOptions{Drift: true})
	if ready := st.Report.Condition("Ready"); ready.Reason != "OrphanPool" || !strings.Contains(ready.Message, "left-id") {
		t.Errorf("status --drift with an orphan: Ready %+v", ready)
	}

	// The stack's own pool (a Civo pool keeps its mark) is no orphan.
	p.Rotate = func(_ context.Context, _ proto.Message, id string, _ kinds.Resolve) (*kinds.Rotation, error) {
		return &kinds.Rotation{Cloud: markedPools{marked: []rotation.MarkedPool{{ID: id, Name: "workers", Mark: ours}}}}, nil
	}
	if o := d.Drift(ctx, p); o.Status != outcome.Done || len(o.Orphans) != 0 {
		t.Errorf("drift with the stack's own marked pool: %s %+v, want no orphan", o.Status, o.Orphans)
	}
}
