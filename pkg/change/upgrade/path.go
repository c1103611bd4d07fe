package upgrade

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// Step is one upgrade of a cluster: from a version to the next on its path.
type Step struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Removes are the APIs the release of To stops serving (none for a patch step).
	Removes []Removed `json:"removes,omitempty"`
}

// Offer is what the cloud lets a cluster upgrade to.
type Offer struct {
	// Next are the versions the cloud lets the running cluster upgrade to now (DigitalOcean's
	// available upgrades); nil when the cloud has no such list and any offered later version
	// goes (Civo).
	Next []string
	// Versions are every version the cloud offers of the cluster's distribution.
	Versions []string
	// PatchFirst says the cloud upgrades to the next minor only from the latest patch of the
	// running one (DigitalOcean: terraform-provider-digitalocean#708, #887), so a cluster behind
	// it takes that patch first.
	PatchFirst bool
}

// Path is the way from running to goal, one minor release at a time, each step to the latest
// patch the cloud offers of its minor, the last step to goal itself (or, for a minor line such
// as "1.32", to that minor's latest patch); where the cloud asks for it (PatchFirst), a cluster
// behind the latest patch of its own minor takes that patch before the first minor step. It returns the steps, and what blocks the path: a
// goal the cloud does not offer, a goal older than the running version, a minor the cloud
// offers no version of, a first step the cloud does not allow now.
func Path(running, goal string, offer Offer) (steps []Step, blockers []string) {
	if goal == "" || running == "" {
		return nil, nil
	}
	target := goal
	if kubeversion.IsMinorLine(goal) {
		if target = latestOf(offer.Versions, goal); target == "" {
			return nil, []string{fmt.Sprintf("the cloud offers no %s version", goal)}
		}
		if kubeversion.SameMinor(running, goal) {
			if less, _ := kubeversion.Less(running, target); !less {
				return nil, nil // the running patch is the latest, or later than the list
			}
		}
	}
	if target == running {
		return nil, nil
	}
	if less, ok := kubeversion.Less(target, running); !ok {
		return nil, []string{fmt.Sprintf("cannot compare the versions %s and %s", running, target)}
	} else if less {
		return nil, []string{fmt.Sprintf("the goal %s is older than the running %s: Kubernetes clusters are never downgraded", target, running)}
	}
	if !slices.Contains(offer.Versions, target) {
		return nil, []string{fmt.Sprintf("the cloud does not offer %s (it offers %s)", target, strings.Join(offer.Versions, ", "))}
	}
	minors, ok := kubeversion.MinorSteps(running, target)
	if !ok {
		return nil, []string{fmt.Sprintf("no path from %s to %s: their major versions differ", running, target)}
	}
	from := running
	if latest := latestOf(offer.Versions, running); offer.PatchFirst && minors > 0 && latest != "" {
		if less, _ := kubeversion.Less(running, latest); less {
			steps = append(steps, Step{From: running, To: latest})
			from = latest
		}
	}
	major := kubeversion.Numbers(running)[0]
	for i := 1; i < minors; i++ {
		minor := fmt.Sprintf("%d.%d", major, kubeversion.Numbers(running)[1]+i)
		v := latestOf(offer.Versions, minor)
		if v == "" {
			return steps, append(blockers, fmt.Sprintf("the cloud offers no %s version to pass through on the way to %s", minor, target))
		}
		steps = append(steps, Step{From: from, To: v})
		from = v
	}
	steps = append(steps, Step{From: from, To: target})
	for i := range steps {
		if !kubeversion.SameMinor(steps[i].From, steps[i].To) {
			steps[i].Removes = RemovedBetween(RemovedAPIs, steps[i].From, steps[i].To)
		}
	}
	if offer.Next != nil && !slices.Contains(offer.Next, steps[0].To) {
		next := "none"
		if len(offer.Next) > 0 {
			next = strings.Join(offer.Next, ", ")
		}
		blockers = append(blockers, fmt.Sprintf("the cloud does not offer an upgrade from %s to %s now (it offers: %s)", running, steps[0].To, next))
	}
	return steps, blockers
}

// latestOf is the latest of versions in the minor line of minor ("1.31", or a version of it), ""
// when none is.
func latestOf(versions []string, minor string) string {
	best := ""
	for _, v := range versions {
		if !kubeversion.SameMinor(v, minor) {
			continue
		}
		if less, ok := kubeversion.Less(best, v); best == "" || (ok && less) {
			best = v
		}
	}
	return best
}
