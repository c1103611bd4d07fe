package upgraderun

import (
	"context"
	"fmt"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// walk takes cluster c, assessed as p and cleared, along its path one step at a time: each step
// starts from what the cluster runs then (assessed afresh), so that a run after a stopped one
// neither repeats nor skips a step. At the goal its stack is refreshed, so that it records the
// version reached.
//
// free gives the cluster's place in the wave to the next cluster: called once the cluster is at
// its goal, before its stack is refreshed, which changes nothing in the cloud.
func (r *run) walk(ctx context.Context, c upgrade.Cluster, p upgrade.Assessment, rep *ClusterReport, order int, free func()) {
	if r.stopsAt(order) {
		return // stopped between the cluster's assessment and its turn: left untouched
	}
	// healthy says the walk has just seen the cluster healthy at the version it runs (its last
	// step ended so), so the cloud need not be read again before the next step.
	healthy := false
	for {
		live := upgrade.Live{ID: p.ID, Version: p.Running}
		if len(p.Steps) == 0 {
			free()
			r.atGoal(ctx, c, p, rep)
			return
		}
		h := upgrade.Health{Phase: upgrade.Settled}
		if !healthy {
			var err error
			if h, err = r.health(ctx, c, live); err != nil {
				r.fail(c, rep, nil, fmt.Sprintf("read the cluster: %v", err))
				return
			}
		}
		healthy = false
		switch h.Phase {
		case upgrade.Broken:
			r.fail(c, rep, nil, fmt.Sprintf("the cloud reports it %s", h.State))
			return
		case upgrade.Moving:
			// A step an earlier run sent is still under way: wait for it, never send it again.
			if !r.resume(ctx, c, live, rep) {
				return
			}
		default:
			if waited, ok := r.window(ctx, c, rep); !ok {
				return
			} else if waited {
				break // the cluster may have moved meanwhile: read and assessed again
			}
			if !r.step(ctx, c, p, rep) {
				return
			}
			healthy = true
		}
		if ctx.Err() != nil {
			r.interrupted(rep)
			return
		}
		p = upgrade.AssessOne(ctx, c)
		if len(p.Steps) > 0 && r.stopsAt(order) {
			rep.Outcome = Stopped
			if rep.Reason == "" {
				rep.Reason = "the rollout stopped: " + r.halt.why
			}
			return
		}
		if !r.clear(c, p, rep, order) {
			return
		}
	}
}

// progress tells Progress cluster c's step s in flight, in phase ("" when it ended).
func (r *run) progress(c upgrade.Cluster, s Step, phase string) {
	if r.stacks.Progress == nil {
		return
	}
	if phase == "" {
		r.stacks.Progress(c.Name, "")
		return
	}
	to := s.To
	if to == "" {
		to = "?"
	}
	r.stacks.Progress(c.Name, fmt.Sprintf("%s: %s → %s, %s (%s)", c.Name, s.From, to, phase, time.Since(s.Start).Round(time.Second)))
}

// interrupted ends the walk of a cluster a second Ctrl-C stopped at once: its manifest is left
// as it is (naming a step the cloud may have taken), for the run that goes on.
func (r *run) interrupted(rep *ClusterReport) {
	r.halt.set(Interrupted, "", "interrupted")
	rep.Outcome, rep.Reason = Stopped, "interrupted"
}

// step takes the next step of p: the manifest written, the stack deployed, the wait until the
// cluster is healthy at the step's version.
func (r *run) step(ctx context.Context, c upgrade.Cluster, p upgrade.Assessment, rep *ClusterReport) bool {
	next := p.Steps[0]
	s := Step{From: p.Running, To: next.To, Start: time.Now()}
	if rep.letThrough != "" {
		r.mu.Lock()
		r.unchecked = append(r.unchecked, rep.letThrough)
		r.mu.Unlock()
	}
	r.say("%s: %s → %s", c.Name, s.From, s.To)
	r.progress(c, s, "deploying")
	defer r.progress(c, Step{}, "")
	if err := r.stacks.Write(c, next.To, p.Target); err != nil {
		r.fail(c, rep, &s, fmt.Sprintf("write %s: %v", c.File, err))
		return false
	}
	err := r.stacks.Up(ctx, c)
	if ctx.Err() != nil {
		r.interrupted(rep)
		return false
	}
	if err != nil {
		r.failStep(ctx, c, p, rep, &s, fmt.Sprintf("up: %v", err))
		return false
	}
	r.say("%s: deployed; waiting for the cloud to report it at %s", c.Name, next.To)
	if why := r.wait(ctx, c, upgrade.Live{ID: p.ID, Version: p.Running}, next.To); ctx.Err() != nil {
		r.interrupted(rep)
		return false
	} else if why != "" {
		r.failStep(ctx, c, p, rep, &s, why)
		return false
	}
	s.End, s.Outcome = time.Now(), StepDone
	rep.Steps, rep.Running = append(rep.Steps, s), next.To
	r.say("%s: at %s, every node ready (%s)", c.Name, next.To, s.End.Sub(s.Start).Round(time.Second))
	return true
}

// window waits, with InWindow, until cluster c's maintenance window is open; it tells whether it
// waited, and whether the walk goes on (not when the rollout stopped meanwhile or the window
// cannot be read).
func (r *run) window(ctx context.Context, c upgrade.Cluster, rep *ClusterReport) (waited, ok bool) {
	if !r.opts.InWindow || c.Window == nil {
		return false, true
	}
	now := time.Now
	if r.opts.Now != nil {
		now = r.opts.Now
	}
	open, at, err := c.Window.Opens(now())
	switch {
	case err != nil:
		r.fail(c, rep, nil, err.Error())
		return false, false
	case open:
		return false, true
	}
	r.say("%s: waiting for its maintenance window (%s %s UTC), which opens %s", c.Name, c.Window.Day, c.Window.Start, at.Format(time.RFC3339))
	select {
	case <-ctx.Done():
	case <-r.stopping:
	case <-time.After(at.Sub(now())):
		return true, true
	}
	if len(rep.Steps) == 0 {
		rep.Outcome = Untouched
	} else {
		rep.Outcome = Stopped
	}
	r.halted()
	return false, false
}

// resume waits for an upgrade an earlier run sent to end, and records it as this run's step.
func (r *run) resume(ctx context.Context, c upgrade.Cluster, live upgrade.Live, rep *ClusterReport) bool {
	s := Step{From: live.Version, Start: time.Now()}
	r.say("%s: an upgrade is under way: waiting for it, not sending it again", c.Name)
	defer r.progress(c, Step{}, "")
	if why := r.wait(ctx, c, live, ""); ctx.Err() != nil {
		r.interrupted(rep)
		return false
	} else if why != "" {
		r.fail(c, rep, &s, why)
		return false
	}
	h, err := r.health(ctx, c, live)
	if err != nil {
		r.fail(c, rep, &s, fmt.Sprintf("read the cluster: %v", err))
		return false
	}
	s.To, s.End, s.Outcome = h.Version, time.Now(), StepResumed
	if s.To != s.From {
		rep.Steps = append(rep.Steps, s)
	}
	r.say("%s: at %s, every node ready (%s)", c.Name, h.Version, s.End.Sub(s.Start).Round(time.Second))
	rep.Running = h.Version
	return true
}

// atGoal ends the walk of a cluster at its goal: its manifest names the goal (a manifest that
// named another version, the cluster upgraded elsewhere, is written), and its stack is
// refreshed when this run moved the cluster or wrote the manifest, so that it records what runs.
func (r *run) atGoal(ctx context.Context, c upgrade.Cluster, p upgrade.Assessment, rep *ClusterReport) {
	if err := r.stacks.Write(c, p.Target, p.Target); err != nil {
		r.fail(c, rep, nil, fmt.Sprintf("write %s: %v", c.File, err))
		return
	}
	if len(rep.Steps) == 0 && c.Version == p.Target {
		rep.Outcome = AtGoal
		return
	}
	if err := r.stacks.Refresh(ctx, c); err != nil {
		r.fail(c, rep, nil, fmt.Sprintf("refresh its stack at %s: %v", rep.Running, err))
		return
	}
	rep.Outcome = Reached
	if len(rep.Steps) == 0 {
		rep.Outcome, rep.Reason = AtGoal, fmt.Sprintf("its manifest said %s: written %s", c.Version, p.Target)
	}
}

// failStep stops the rollout at a failed step s of c (assessed as p). Where the cloud reports the
// cluster settled or broken at the version the step started from (the deploy failed, or the cloud
// failed the upgrade and kept the old version), the manifest is written back to that version, so
// that it names what runs; where the cloud may still take the step (it reports the cluster
// moving, or cannot be read), the manifest keeps naming the step, for the run that goes on.
func (r *run) failStep(ctx context.Context, c upgrade.Cluster, p upgrade.Assessment, rep *ClusterReport, s *Step, why string) {
	h, err := r.health(ctx, c, upgrade.Live{ID: p.ID, Version: p.Running})
	switch {
	case err != nil || h.Phase == upgrade.Moving || h.Version != s.From:
		why += fmt.Sprintf("; %s names %s, which the cloud may still take", c.File, s.To)
	default:
		if err := r.stacks.Write(c, s.From, p.Target); err != nil {
			why += fmt.Sprintf("; and %s still names %s: %v", c.File, s.To, err)
		}
	}
	r.fail(c, rep, s, why)
}

// fail stops the rollout at cluster c: its step s (when one was under way) failed for why.
func (r *run) fail(c upgrade.Cluster, rep *ClusterReport, s *Step, why string) {
	if s != nil {
		s.End, s.Outcome, s.Error = time.Now(), StepFailed, why
		rep.Steps = append(rep.Steps, *s)
	}
	rep.Outcome, rep.Reason = Stopped, why
	r.halt.set(Failed, c.Name, fmt.Sprintf("%s (%s): %s", c.Name, c.File, why))
	r.say("%s: failed: %s", c.Name, why)
}

// wait reads the cluster, in the rollout's pace (reads), until it is healthy at version ("": at
// whatever version it settles, an upgrade an earlier run sent) and tells why not when it is not:
// the cloud reports it failed, or StepTimeout passed first. Healthy is running, at the version,
// every node the cloud reports running, and every node the cluster's own API lists Ready at the
// version's minor where that API answers from here.
func (r *run) wait(ctx context.Context, c upgrade.Cluster, live upgrade.Live, version string) string {
	started := time.Now()
	deadline := started.Add(r.opts.StepTimeout)
	var kube nodes
	last := ""
	for n := 0; ; n++ {
		d := r.reads.after(time.Since(started), n, r.opts.Poll, version != "")
		if r.opts.StepTimeout > 0 {
			d = min(d, max(time.Until(deadline), 0))
		}
		select {
		case <-ctx.Done():
			return "interrupted"
		case <-time.After(d):
		}
		h, err := r.health(ctx, c, live)
		switch {
		case ctx.Err() != nil:
			return "interrupted"
		case err != nil:
			last = err.Error()
		case h.Phase == upgrade.Broken:
			return fmt.Sprintf("the cloud reports the cluster %s at %s", h.State, h.Version)
		case h.Phase == upgrade.Settled && (version == "" || h.Version == version) && h.NodesReady == h.Nodes:
			ready, why := kube.ready(ctx, c, live, h.Version)
			if ready {
				if version != "" {
					r.reads.learn(time.Since(started))
				}
				return ""
			}
			last = why
		default:
			last = fmt.Sprintf("%s at %s, %d of %d nodes running", h.State, h.Version, h.NodesReady, h.Nodes)
		}
		r.progress(c, Step{From: live.Version, To: version, Start: started}, last)
		if r.opts.StepTimeout > 0 && time.Now().After(deadline) {
			return fmt.Sprintf("not healthy within %s (%s)", r.opts.StepTimeout, last)
		}
	}
}

// health reads cluster c's health in its turn of the rollout's pace.
func (r *run) health(ctx context.Context, c upgrade.Cluster, live upgrade.Live) (upgrade.Health, error) {
	if err := r.reads.turn(ctx); err != nil {
		return upgrade.Health{}, err
	}
	return c.Cloud.Health(ctx, live)
}

// nodes is what a wait knows of the cluster's own API: how to list it, or that it did not answer
// from here, after which the cloud's node states are taken for the rest of the wait (each ask
// of an address that does not answer would cost the wait its timeout).
type nodes struct {
	list upgrade.Lister
	down bool
}

// ready asks the cluster's own API whether every node is Ready at version; where that API cannot
// be reached from here, the cloud's node states (already running) are taken.
func (n *nodes) ready(ctx context.Context, c upgrade.Cluster, live upgrade.Live, version string) (bool, string) {
	if n.down {
		return true, ""
	}
	if n.list == nil {
		l, err := c.Cloud.Objects(ctx, live)
		if err != nil {
			n.down = true
			return true, ""
		}
		n.list = l
	}
	total, ready, err := upgrade.NodesReady(ctx, n.list, version)
	if err != nil {
		n.down = true
		return true, ""
	}
	if ready < total {
		return false, fmt.Sprintf("%d of %d nodes Ready at %s", ready, total, version)
	}
	return true, ""
}

// soak waits opts.Soak after wave w and checks that each of its clusters stayed healthy at what
// it reached; one that did not stops the rollout.
func (r *run) soak(ctx context.Context, w upgrade.Wave, reports []ClusterReport) {
	moved := false
	for i := range reports { // by index: a cluster's refresh may still write its report's outcome
		moved = moved || len(reports[i].Steps) > 0
	}
	if r.opts.Soak <= 0 || !moved {
		return // nothing to watch: no cluster of the wave moved
	}
	r.say("wave %s: soaking %s", w.Name, r.opts.Soak)
	select {
	case <-ctx.Done():
		return
	case <-r.stopping:
		return
	case <-time.After(r.opts.Soak):
	}
	r.waves[len(r.waves)-1].Wait() // the wave's refreshes, which went on beside the soak
	for i, p := range w.Plans {
		c, rep := r.byKey[key(p.File, p.Name)], &reports[i]
		h, err := r.health(ctx, c, upgrade.Live{ID: p.ID, Version: rep.Running})
		if err == nil && h.Phase == upgrade.Settled && h.Version == rep.Running && h.NodesReady == h.Nodes {
			continue
		}
		why := fmt.Sprintf("did not stay healthy through the soak: %s at %s, %d of %d nodes running", h.State, h.Version, h.NodesReady, h.Nodes)
		if err != nil {
			why = fmt.Sprintf("could not be read after the soak: %v", err)
		}
		r.fail(c, rep, nil, why)
		return
	}
}
