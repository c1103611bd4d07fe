// Package upgraderun carries out a fleet's Kubernetes upgrades, for `clusterplane upgrade
// apply`: the plan's clusters in waves (pkg/change/upgrade's Waves), each cluster one step of its
// path at a time (the step written into its manifest, its stack deployed, then a wait until the
// cloud reports it running at that version with every node ready), stopping at the first step
// that fails or cluster that is blocked. The manifests and the clouds are its only record: each
// step is decided from what the cluster runs when it starts, so the same run again goes on
// where the last one stopped and never sends a step twice. Deploying a stack and writing a file
// are the caller's (Stacks); printing and exit codes too.
package upgraderun

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// Options are upgrade apply's flags.
type Options struct {
	// Canary clusters of the first wave go alone before the rest of it; Parallel clusters of a
	// wave are upgraded at once (at least 1).
	Canary, Parallel int
	// Soak is how long a finished wave must stay healthy before the next starts; StepTimeout
	// bounds the wait for a step's cluster to end healthy; Poll is how often the cloud is asked
	// meanwhile, until the rollout's steps show when a step is expected to end (reads.after).
	Soak, StepTimeout, Poll time.Duration
	// ReadsAMinute bounds the rollout's reads of its clusters' health, all together
	// (MostReadsAMinute when 0).
	ReadsAMinute int
	// AllowUnchecked lets a step through whose removed APIs could not be checked (the cluster's
	// API does not answer from here): the report names each.
	AllowUnchecked bool
	// InWindow makes each step wait for its cluster's maintenance window to be open
	// (--in-maintenance-window); Now is the clock it is read by (time.Now when nil).
	InWindow bool
	Now      func() time.Time
}

// Stacks is how a rollout changes a cluster, given by the caller: the manifest's file and the
// cluster's stack. Up and Refresh are called for up to Parallel clusters at once, each for its own
// cluster's file.
type Stacks struct {
	// Write sets the manifest's version to next and keeps goal in its goal annotation, or
	// removes the annotation when next is the goal (upgrade.Write on the cluster's file).
	Write func(c upgrade.Cluster, next, goal string) error
	// Up deploys the cluster's stack from its manifest, with the deploy pipeline's guards.
	Up func(ctx context.Context, c upgrade.Cluster) error
	// Refresh reads the stack back from the cloud, so that it records the version reached.
	Refresh func(ctx context.Context, c upgrade.Cluster) error
	// Say tells a person how the rollout goes, a line at a time; nil says nothing.
	Say func(line string)
	// Progress, when set, is told a cluster's step in flight as it goes (its phase and time so
	// far), and "" when it ends: a terminal's live line for the cluster.
	Progress func(cluster, line string)
}

// Stop is what stopped a rollout.
type Stop string

const (
	// NotStopped: every cluster reached its goal.
	NotStopped Stop = ""
	// Blocked: a cluster's next step is blocked (a removed API in use, a clusterlint error, a
	// version the cloud does not offer).
	Blocked Stop = "blocked"
	// Failed: a step failed or did not end healthy in time, or a wave did not stay healthy.
	Failed Stop = "failed"
	// Interrupted: the person asked it to stop.
	Interrupted Stop = "interrupted"
)

// Outcomes of a cluster in a rollout.
const (
	// Reached: the cluster is at its goal, after steps of this run.
	Reached = "reached"
	// AtGoal: the cluster was at its goal already and was left alone.
	AtGoal = "at goal"
	// Stopped: the rollout stopped at this cluster (its step failed or it is blocked), or
	// stopped elsewhere after some of its steps.
	Stopped = "stopped"
	// Untouched: the rollout stopped before it got to the cluster.
	Untouched = "untouched"
)

// Report is what a rollout did, cluster by cluster, and what stopped it.
type Report struct {
	Waves     []WaveReport `json:"waves"`
	Stop      Stop         `json:"stop,omitempty"`
	StopWhy   string       `json:"stopReason,omitempty"`
	StoppedAt string       `json:"stoppedAt,omitempty"`
	// Unchecked are the steps let through with their removed APIs unchecked
	// (--allow-unchecked-apis), each "cluster: from → to".
	Unchecked []string  `json:"unchecked"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
}

// WaveReport is one wave of a rollout.
type WaveReport struct {
	Name     string          `json:"name"`
	Clusters []ClusterReport `json:"clusters"`
}

// ClusterReport is one cluster of a rollout: its path as planned when the run began, and each
// step taken.
type ClusterReport struct {
	File    string `json:"file"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Env     string `json:"env,omitempty"`
	Cluster string `json:"cluster"`
	// From is the version it ran when the rollout began, Goal where it is headed, Running what
	// it runs at the end (as last read).
	From    string   `json:"from"`
	Goal    string   `json:"goal"`
	Running string   `json:"running"`
	Path    []string `json:"path"`
	Steps   []Step   `json:"steps"`
	Outcome string   `json:"outcome"`
	Reason  string   `json:"reason,omitempty"`
	// letThrough is the next step, "cluster: from → to", when --allow-unchecked-apis let it
	// through; the run names it once it sends the step.
	letThrough string
}

// Step is one step a rollout took on a cluster.
type Step struct {
	From    string    `json:"from"`
	To      string    `json:"to"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Outcome string    `json:"outcome"`
	// Error says why a step failed.
	Error string `json:"error,omitempty"`
}

// Step outcomes.
const (
	// StepDone: the cluster runs the step's version, every node ready.
	StepDone = "done"
	// StepResumed: the step was sent by an earlier run (its cluster was upgrading when this one
	// began) and this run waited for it to end, without sending it again.
	StepResumed = "resumed"
	// StepFailed: the deploy failed, the cloud reports the cluster failed, or it did not end
	// healthy within the step timeout.
	StepFailed = "failed"
)

// Done counts the report's clusters that reached or were at their goal, and the steps that
// ended done or resumed.
func (r Report) Done() (done, total, steps int) {
	for _, w := range r.Waves {
		for _, c := range w.Clusters {
			total++
			if c.Outcome == Reached || c.Outcome == AtGoal {
				done++
			}
			steps += c.Taken()
		}
	}
	return done, total, steps
}

// Taken counts the cluster's steps that ended done or resumed (a failed one is not taken).
func (c ClusterReport) Taken() int {
	n := 0
	for _, s := range c.Steps {
		if s.Outcome == StepDone || s.Outcome == StepResumed {
			n++
		}
	}
	return n
}

// halt is the first stop of a rollout, shared by its workers: a failure or an interrupt after a
// block takes its place, since it stops the clusters a block lets go on (passes).
type halt struct {
	mu   sync.Mutex
	stop Stop
	why  string
	at   string
	// order is the blocked cluster's place in its wave, for a Blocked stop.
	order int
}

func (h *halt) set(stop Stop, at, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stop == NotStopped || (h.stop == Blocked && stop != Blocked) {
		h.stop, h.at, h.why = stop, at, why
	}
}

// block stops the rollout at the cluster at order in its wave, which is blocked; a second block
// before the first in the wave stops the clusters between them too.
func (h *halt) block(order int, at, why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.stop == NotStopped:
		h.stop, h.at, h.why, h.order = Blocked, at, why, order
	case h.stop == Blocked:
		h.order = min(h.order, order)
	}
}

// passes tells whether the cluster at order in the wave goes on although the rollout stopped:
// it stopped only at a blocked cluster after this one, and a run one cluster at a time (the dry
// run's order) would have taken this one to its goal before it came to the blocked one.
func (h *halt) passes(order int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stop == Blocked && order < h.order
}

func (h *halt) stopped() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stop != NotStopped
}

// Validate checks the options as flags: a mistake is said before anything runs.
func (o Options) Validate() error {
	switch {
	case o.Parallel < 1:
		return fmt.Errorf("--parallel %d: give 1 or more", o.Parallel)
	case o.Canary < 0:
		return fmt.Errorf("--canary %d: give 0 or more", o.Canary)
	case o.Soak < 0:
		return fmt.Errorf("--soak %s: give 0 or more", o.Soak)
	case o.StepTimeout <= 0:
		return fmt.Errorf("--step-timeout %s: give more than 0", o.StepTimeout)
	case o.Poll <= 0:
		return fmt.Errorf("--poll %s: give more than 0", o.Poll)
	}
	return nil
}
