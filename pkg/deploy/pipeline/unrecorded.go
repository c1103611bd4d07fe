package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// unrecorded sorts the clusters the fleet scan listed and no judged stack holds (listed) by the
// stack mark they carry (package stackmark). A cluster marked by a target's stack in backend
// (backendID), which the stack does not record, is that target's (byTarget, by key): what a
// create left when no up took it back, or what a state edit dropped. recorded holds, for each
// target whose records the scan read, the ids of the clusters its state holds; a target whose
// records were not read is not judged, for its state might hold the cluster. A cluster marked by
// a stack of the backend that is no target is in others: its stack is elsewhere, or removed.
func unrecorded(backendID string, listed []scan.Cluster, targets []deploytarget.Target, recorded map[string][]string) (
	byTarget map[string][]kinds.Live, others []scan.Cluster) {
	ours := stackmark.Of(backendID, "").Backend
	keyOf := map[stackmark.Mark]string{}
	for _, t := range targets {
		keyOf[stackmark.Of(backendID, t.Key())] = t.Key()
	}
	byTarget = map[string][]kinds.Live{}
	for _, c := range listed {
		for _, m := range stackmark.In(c.Tags) {
			if m.Backend != ours {
				continue
			}
			key, isTarget := keyOf[m]
			ids, read := recorded[key]
			switch {
			case !isTarget:
				others = append(others, c)
			case read && !slices.Contains(ids, c.ID):
				byTarget[key] = append(byTarget[key], kinds.Live{Type: "cluster", Name: c.Name, Where: "region " + c.Region, ID: c.ID, Tags: c.Tags})
			}
			break
		}
	}
	return byTarget, others
}

// markUnrecorded puts into out, the scan's findings by key, the clusters marked by each target's
// stack that it does not record (unrecorded), and returns those marked by no target's stack.
func markUnrecorded(out map[string]deploy.Scanned, backendID string, listed []scan.Cluster, targets []deploytarget.Target,
	recorded map[string][]string) []scan.Cluster {
	byTarget, others := unrecorded(backendID, listed, targets, recorded)
	for key, live := range byTarget {
		sc := out[key]
		sc.Unrecorded = live
		out[key] = sc
	}
	return others
}

// listAccountOf lists, for the scan's Unheld, the account (or region) where target t's cluster
// would be, for a stack that holds nothing and so judged nothing that listed it.
func listAccountOf(ctx context.Context, s *scan.Scanner, t deploytarget.Target) {
	cloud, base, token := stackinput.CloudAPI(t.Input)
	if token == "" {
		return
	}
	region := protofield.String(protofield.At(apikinds.Target(t.Input).ProtoReflect(), kindfield.TargetSpec), kindfield.SpecRegion)
	s.List(ctx, scan.Account{Cloud: cloud, Base: base, Token: token}, deploytarget.GuardedType(t.Effects), region)
}

// recordedClusters are the ids of the clusters a cluster stack's state st records, those a
// replacement is deleting too: the stack deletes those itself. known is false while a create is
// pending (an up running elsewhere, or one killed): what it makes is the stack's, unrecorded yet.
func recordedClusters(t deploytarget.Target, st stackstate.State) (ids []string, known bool) {
	if len(st.PendingCreates()) > 0 {
		return nil, false
	}
	typ := deploytarget.GuardedType(t.Effects)
	ids = []string{}
	for _, r := range st.Deployment.Resources {
		if string(r.Type) == typ {
			ids = append(ids, string(r.ID))
		}
	}
	return ids, true
}

// unrecordedLine says the clusters marked by stacks of the backend that none of the run's
// manifests deploys.
func unrecordedLine(others []scan.Cluster) string {
	return fmt.Sprintf("%s in the listed accounts carry the mark of a stack of this backend that none of these manifests deploys "+
		"(that stack's manifest is elsewhere, or the stack was removed): %s; run drift with that manifest, or `clusterplane "+
		"discover` writes one to adopt it with", count1(len(others), "cluster"), clusterNames(others))
}
