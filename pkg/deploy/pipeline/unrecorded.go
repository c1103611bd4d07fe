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
// (backendID), which the stack does not record, is that target's (found.unrecorded, by key): what
// a create left when no up took it back, or what a state edit dropped. recorded holds, for each
// target whose records the scan read, the ids of the clusters its state holds; a target whose
// records were not read is not judged, for its state might hold the cluster. A cluster marked by
// a stack of the backend that is no target is in found.others: its stack is elsewhere, or removed.
// A cluster marked by a target's stack in another backend, when the target holds nothing here, is
// in found.elsewhere: up here would refuse it.
func unrecorded(backendID string, listed []scan.Cluster, targets []deploytarget.Target, recorded map[string][]string) (found marked) {
	ours := stackmark.Of(backendID, "").Backend
	keyOf, keyOfStack := map[stackmark.Mark]string{}, map[string]string{}
	for _, t := range targets {
		m := stackmark.Of(backendID, t.Key())
		keyOf[m], keyOfStack[m.Stack] = t.Key(), t.Key()
	}
	found = marked{unrecorded: map[string][]kinds.Live{}, elsewhere: map[string][]kinds.Live{}}
	for _, c := range listed {
		live := kinds.Live{Type: "cluster", Name: c.Name, Where: "region " + c.Region, ID: c.ID, Tags: c.Tags}
		for _, m := range stackmark.In(c.Tags) {
			if m.Backend != ours {
				if key, isTarget := keyOfStack[m.Stack]; isTarget && recorded[key] != nil && len(recorded[key]) == 0 {
					found.elsewhere[key] = append(found.elsewhere[key], live)
				}
				continue
			}
			key, isTarget := keyOf[m]
			ids, read := recorded[key]
			switch {
			case !isTarget:
				found.others = append(found.others, c)
			case read && !slices.Contains(ids, c.ID):
				found.unrecorded[key] = append(found.unrecorded[key], live)
			}
			break
		}
	}
	return found
}

// marked is what unrecorded found of the clusters carrying a stack's mark.
type marked struct {
	// unrecorded and elsewhere are by target key; others are marked by no target's stack.
	unrecorded, elsewhere map[string][]kinds.Live
	others                []scan.Cluster
}

// markUnrecorded puts into out, the scan's findings by key, the clusters marked by each target's
// stack that it does not record, and those marked by its stack in another backend when it holds
// nothing (unrecorded), and returns those marked by no target's stack.
func markUnrecorded(out map[string]deploy.Scanned, backendID string, listed []scan.Cluster, targets []deploytarget.Target,
	recorded map[string][]string) []scan.Cluster {
	found := unrecorded(backendID, listed, targets, recorded)
	for key, live := range found.unrecorded {
		sc := out[key]
		sc.Unrecorded = live
		out[key] = sc
	}
	for key, live := range found.elsewhere {
		sc := out[key]
		sc.ElsewhereMarked = live
		out[key] = sc
	}
	return found.others
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
