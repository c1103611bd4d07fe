package upgrade

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// FirstStepError is a module's refusal of a manifest version that the cloud cannot upgrade the
// running cluster to in one step. The step it says to deploy first is the first step of Path,
// the function `upgrade plan` computes its path with: a refusal that worked out its own step once
// named another than the plan did, and the user was sent round in a circle.
type FirstStepError struct {
	// Field is the manifest's path of the version, e.g. "spec.kubernetesVersion".
	Field string
	// Cloud names the cloud, e.g. "DigitalOcean".
	Cloud string
	// Running is the version the cluster runs, Manifest the one the manifest asks for.
	Running, Manifest string
	// Steps are Path's steps from Running to Manifest; nil when the cloud's versions could not be
	// read, so that no step can be named.
	Steps []Step
	// Blockers are what Path found in the way, said when no step can be named.
	Blockers []string
	// PatchFirst is the offer's: the cloud upgrades to the next minor only from the latest patch
	// of the running one.
	PatchFirst bool
}

// planHint ends every FirstStepError: it tells where the whole path is, and marks where the
// refusal's words end, so that they can be read back out of the engine's output.
const planHint = "(`clusterplane upgrade plan` names each step)"

func (e *FirstStepError) Error() string {
	rule := "it upgrades one minor version at a time"
	if e.PatchFirst {
		rule += ", from the latest patch of the running minor"
	}
	head := fmt.Sprintf("%s: %s cannot upgrade the cluster from %s to %s in one step: %s", e.Field, e.Cloud, e.Running, e.Manifest, rule)
	if len(e.Steps) == 0 {
		why := "the versions it offers could not be read to name the first step"
		if len(e.Blockers) > 0 {
			why = strings.Join(e.Blockers, "; ")
		}
		return head + ", and " + why + " " + planHint
	}
	way := make([]string, 0, len(e.Steps))
	for _, s := range e.Steps {
		way = append(way, s.To)
	}
	blocked := ""
	if len(e.Blockers) > 0 {
		blocked = " (" + strings.Join(e.Blockers, "; ") + ")"
	}
	return fmt.Sprintf("%s, so the way there is %s%s. Set kubernetesVersion to %s and deploy, then each next version in turn %s",
		head, strings.Join(way, ", then "), blocked, e.Steps[0].To, planHint)
}

// FirstStep is the refusal to deploy goal over a cluster running running, with what the cloud
// offers: a *FirstStepError when goal is not the first step of Path, naming Path's first step
// (the one `upgrade plan` names); nil when the cluster can take goal now. An upgrade within the
// running minor is always one step. When Path names no step (a goal the cloud does not offer),
// only a jump of several minors is refused: the next minor is sent, and the cloud's own answer
// says what is wrong with it. offer.Versions nil means the cloud's versions could not be read:
// then too a jump of several minors is refused, without a step named, and anything else is
// left to the cloud, as before this check knew the versions.
func FirstStep(field, cloud, running, goal string, offer Offer) error {
	minors, ok := kubeversion.MinorSteps(running, goal)
	if running == "" || !ok || minors < 1 {
		return nil
	}
	refusal := &FirstStepError{Field: field, Cloud: cloud, Running: running, Manifest: goal, PatchFirst: offer.PatchFirst}
	if len(offer.Versions) == 0 {
		if minors > 1 {
			return refusal
		}
		return nil
	}
	steps, blockers := Path(running, goal, offer)
	switch {
	case len(steps) > 0 && steps[0].To != target(goal, offer.Versions):
		// The first step is not goal itself (a patch first, or a minor on the way), or the path
		// stops after it (a minor the cloud offers no version of): goal cannot be deployed now.
		refusal.Steps, refusal.Blockers = steps, blockers
		return refusal
	case len(steps) == 0 && minors > 1:
		refusal.Blockers = blockers
		return refusal
	}
	return nil
}

// target is the version goal stands for: itself, or for a minor line ("1.32") its latest version
// in versions, as Path reads it.
func target(goal string, versions []string) string {
	if kubeversion.IsMinorLine(goal) {
		return latestOf(versions, goal)
	}
	return goal
}

// firstStepWords match a FirstStepError's text wherever the engine quotes it: its field, the
// versions, and its words from the cloud's name to the plan hint that ends them.
var firstStepWords = regexp.MustCompile(`(spec\.[A-Za-z.]+): ([A-Za-z]+ cannot upgrade the cluster from (\S+) to (\S+) in one step: [^\n]*?` +
	regexp.QuoteMeta(planHint) + `)`)

// ReadFirstStep finds a FirstStepError in text (what the engine said of a failed preview or
// update): its field, the running and the manifest's versions, and its words after the field;
// ok is false when there is none.
func ReadFirstStep(text string) (field, running, manifest, words string, ok bool) {
	m := firstStepWords.FindStringSubmatch(text)
	if m == nil {
		return "", "", "", "", false
	}
	return m[1], m[3], m[4], m[2], true
}
