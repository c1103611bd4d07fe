package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// unrecorded sorts the clusters the fleet scan listed and no judged stack holds (listed), and the
// pools it listed carrying a mark (pools), by the stack mark they carry (package stackmark). One
// marked by a target's stack in backend (backendID), which the stack does not record, is that
// target's (found.unrecorded, by key): what a create left when no up took it back, or what a
// state edit dropped. recorded holds, for each target whose records the scan read, the ids of the
// clusters (pools) its state holds; a target whose records were not read is not judged, for its
// state might hold it. One marked by a stack of the backend that is no target is in found.others:
// its stack is elsewhere, or removed. A cluster marked by a target's stack in another backend,
// when the target holds nothing here, is in found.elsewhere: up here would refuse it.
func unrecorded(backendID string, listed []scan.Cluster, pools []cloud.ListedPool, targets []deploytarget.Target,
	recorded map[string][]string) (found marked) {
	ours := stackmark.Of(backendID, "").Backend
	keyOf, keyOfStack, pool := map[stackmark.Mark]string{}, map[string]string{}, map[string]bool{}
	// where is each target's cluster's name and region in the cloud, which up's look before a
	// create asks for.
	where := map[string][2]string{}
	for _, t := range targets {
		m := stackmark.Of(backendID, t.Key())
		keyOf[m], keyOfStack[m.Stack] = t.Key(), t.Key()
		pool[t.Key()] = t.Effects != nil && t.Effects.Types[effects.Cluster] == ""
		spec := protofield.At(apikinds.Target(t.Input).ProtoReflect(), kindfield.TargetSpec)
		name := protofield.String(spec, strings.TrimPrefix(stackinput.CloudName(t.Input), "spec."))
		where[t.Key()] = [2]string{name, protofield.String(spec, kindfield.SpecRegion)}
	}
	found = marked{unrecorded: map[string][]kinds.Live{}, elsewhere: map[string][]kinds.Live{}}
	for _, c := range listed {
		live := kinds.Live{Type: "cluster", Name: c.Name, Where: "region " + c.Region, ID: c.ID, Tags: c.Tags}
		for _, m := range stackmark.In(c.Tags) {
			if m.Backend != ours {
				// Only one up here would be refused for: of the target's name, in its region.
				if key, isTarget := keyOfStack[m.Stack]; isTarget && recorded[key] != nil && len(recorded[key]) == 0 &&
					!pool[key] && where[key] == [2]string{c.Name, c.Region} {
					found.elsewhere[key] = append(found.elsewhere[key], live)
				}
				continue
			}
			key, isTarget := keyOf[m]
			ids, read := recorded[key]
			switch {
			case !isTarget:
				found.others = append(found.others, clusterName(c))
			case read && !slices.Contains(ids, c.ID):
				found.unrecorded[key] = append(found.unrecorded[key], live)
			}
			break
		}
	}
	for _, p := range pools {
		for _, m := range stackmark.In(p.Tags) {
			if m.Backend != ours {
				continue
			}
			key, isTarget := keyOf[m]
			ids, read := recorded[key]
			switch {
			case !isTarget:
				found.others = append(found.others, fmt.Sprintf("%s pool %s (%s) of cluster %s", p.Cluster.Cloud, p.Name, p.AdoptID, p.Cluster.Name))
			case pool[key] && read && !slices.Contains(ids, p.ID):
				found.unrecorded[key] = append(found.unrecorded[key], kinds.Live{Type: "node pool", Name: p.Name,
					Where: "cluster " + p.Cluster.Name, ID: p.AdoptID, Tags: p.Tags})
			}
			break
		}
	}
	return found
}

// marked is what unrecorded found of the clusters and pools carrying a stack's mark.
type marked struct {
	// unrecorded and elsewhere are by target key; others names those marked by no target's
	// stack.
	unrecorded, elsewhere map[string][]kinds.Live
	others                []string
}

// markUnrecorded puts into out, the scan's findings by key, the clusters and pools marked by each
// target's stack that it does not record, and the clusters marked by its stack in another backend
// when it holds nothing (unrecorded), and returns the names of those marked by no target's stack.
func markUnrecorded(out map[string]deploy.Scanned, backendID string, listed []scan.Cluster, pools []cloud.ListedPool,
	targets []deploytarget.Target, recorded map[string][]string) []string {
	found := unrecorded(backendID, listed, pools, targets, recorded)
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
	if rec, _ := rotationrun.RecordedRotation(st.Outputs()); rec != nil {
		// A rotation under way (or stopped) has pools of the stack's that its record, not the
		// state's pool resource, names: the up that resumes it takes them, not an adopt.
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

// unrecordedLine says the clusters and pools (others, as people read them) marked by stacks of
// the backend that none of the run's manifests deploys, the first ten.
func unrecordedLine(others []string) string {
	what := "1 cluster or pool in the listed accounts carries"
	if len(others) > 1 {
		what = fmt.Sprintf("%d clusters and pools in the listed accounts carry", len(others))
	}
	return fmt.Sprintf("%s the mark of a stack of this backend that none of these manifests deploys "+
		"(that stack's manifest is elsewhere, or the stack was removed): %s; run drift with that manifest, or `clusterplane "+
		"discover` writes one to adopt it with", what, firstTen(others))
}
