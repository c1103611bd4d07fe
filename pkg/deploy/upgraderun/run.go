package upgraderun

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// Plan is the rollout a run of clusters would take, without changing anything: the clusters
// assessed (upgrade.Assess) in their waves, each with its whole path, up to the first blocked
// cluster, where a run stops. --dry-run prints it, and a run takes exactly its steps, in its
// order, while nothing changes on the way. With opts.AllowUnchecked, removed APIs that could
// not be checked block nothing.
func Plan(ctx context.Context, clusters []upgrade.Cluster, opts Options) []upgrade.Wave {
	waves := upgrade.Waves(upgrade.Assess(ctx, clusters), opts.Canary)
	for _, w := range waves {
		for i, p := range w.Plans {
			if opts.AllowUnchecked && p.Unchecked != "" {
				w.Plans[i].Blockers = slices.DeleteFunc(slices.Clone(p.Blockers), func(b string) bool { return b == p.Unchecked })
			}
		}
	}
	return waves
}

// Stops tells whether a run stops at plan p, before its first step: something blocks it, or its
// cluster is not deployed.
func Stops(p upgrade.Assessment) bool {
	return p.Blocked() || (p.Running == "" && p.Target != "")
}

// Run carries out the rollout of clusters: the waves in Plan's order, each wave's clusters up
// to opts.Parallel at once, each cluster step by step (walk). It stops at the first cluster
// blocked or step failed, and when stopping is closed (a first Ctrl-C): no cluster starts after
// that, and a step in flight ends (its wait included) before its cluster stops; ctx's end (a
// second Ctrl-C) stops at once.
func Run(ctx context.Context, stopping <-chan struct{}, clusters []upgrade.Cluster, opts Options, stacks Stacks) Report {
	r := &run{opts: opts, stacks: stacks, stopping: stopping, byKey: map[string]upgrade.Cluster{}}
	if r.opts.Parallel < 1 {
		r.opts.Parallel = 1
	}
	r.reads = newReads(opts.ReadsAMinute, r.opts.Parallel)
	if r.opts.Poll <= 0 {
		r.opts.Poll = 10 * time.Second
	}
	for _, c := range clusters {
		r.byKey[key(c.File, c.Name)] = c
	}
	rep := Report{Started: time.Now(), Unchecked: []string{}}
	// Only the order and the paths: each cluster is assessed in full when its turn comes (wave).
	waves := upgrade.Waves(upgrade.Paths(ctx, clusters), opts.Canary)
	for i, w := range waves {
		wr := WaveReport{Name: w.Name, Clusters: make([]ClusterReport, len(w.Plans))}
		for j, p := range w.Plans {
			wr.Clusters[j] = newClusterReport(p)
		}
		if !r.halted() {
			r.say("wave %s: %s", w.Name, clusterCount(len(w.Plans)))
			r.wave(ctx, w, wr.Clusters)
			if !r.halted() && i < len(waves)-1 {
				r.soak(ctx, w, wr.Clusters)
			}
		}
		rep.Waves = append(rep.Waves, wr)
	}
	r.walks.Wait()
	rep.Stop, rep.StopWhy, rep.StoppedAt = r.halt.stop, r.halt.why, r.halt.at
	rep.Unchecked = append(rep.Unchecked, r.unchecked...)
	rep.Ended = time.Now()
	return rep
}

// clusterCount is "1 cluster" or "N clusters".
func clusterCount(n int) string {
	if n == 1 {
		return "1 cluster"
	}
	return fmt.Sprintf("%d clusters", n)
}

func newClusterReport(p upgrade.Assessment) ClusterReport {
	c := ClusterReport{File: p.File, Kind: p.Kind, Name: p.Name, Env: p.Env, Cluster: p.Cluster, From: p.Running,
		Goal: p.Target, Running: p.Running, Path: []string{}, Steps: []Step{}, Outcome: Untouched}
	for _, s := range p.Steps {
		c.Path = append(c.Path, s.To)
	}
	return c
}

func key(file, name string) string { return file + "\x00" + name }

// run is one rollout under way.
type run struct {
	opts     Options
	stacks   Stacks
	stopping <-chan struct{}
	byKey    map[string]upgrade.Cluster
	reads    *reads
	// walks are the clusters' walks under way; waves each wave's, in order.
	walks     sync.WaitGroup
	waves     []*sync.WaitGroup
	halt      halt
	mu        sync.Mutex
	unchecked []string
}

func (r *run) say(format string, args ...any) {
	if r.stacks.Say != nil {
		r.stacks.Say(fmt.Sprintf(format, args...))
	}
}

// stopsAt tells whether the cluster at order in its wave stops before its next step: the
// rollout stopped, unless only at a blocked cluster after it in the wave (halt.passes).
func (r *run) stopsAt(order int) bool {
	return r.halted() && !r.halt.passes(order)
}

// halted tells whether the rollout stops: a cluster stopped it, or a person asked.
func (r *run) halted() bool {
	select {
	case <-r.stopping:
		r.halt.set(Interrupted, "", "interrupted")
	default:
	}
	return r.halt.stopped()
}

// wave upgrades the wave's clusters, up to Parallel at once, in the wave's order: a cluster is
// assessed when a place is free for it, and before it starts, so that it starts from what it
// runs then and a blocked one stops the wave before any cluster after it starts.
//
// The wave ends when every cluster has given its place back: stopped, or at its goal, before its
// stack's refresh, which changes nothing in the cloud and so goes on beside the next wave (a soak
// waits for it before it reads the wave's clusters).
func (r *run) wave(ctx context.Context, w upgrade.Wave, reports []ClusterReport) {
	places := make(chan struct{}, r.opts.Parallel)
	wg := &sync.WaitGroup{}
	r.waves = append(r.waves, wg)
	for i, planned := range w.Plans {
		places <- struct{}{}
		if r.halted() {
			<-places
			break
		}
		c := r.byKey[key(planned.File, planned.Name)]
		p := upgrade.AssessOne(ctx, c)
		if !r.clear(c, p, &reports[i], i) {
			<-places
			break
		}
		wg.Add(1)
		r.walks.Add(1)
		go func(rep *ClusterReport, order int) {
			var once sync.Once
			free := func() { once.Do(func() { <-places }) }
			defer func() { free(); wg.Done(); r.walks.Done() }()
			r.walk(ctx, c, p, rep, order, free)
		}(&reports[i], i)
	}
	for range cap(places) {
		places <- struct{}{}
	}
}

// clear tells whether cluster c, assessed as p, may take its next step; if not, the rollout stops
// there (blocked) and its report says why. --allow-unchecked-apis lets through a step whose
// removed APIs could not be checked, and the report names it.
func (r *run) clear(c upgrade.Cluster, p upgrade.Assessment, rep *ClusterReport, order int) bool {
	rep.Running = p.Running
	if p.Running == "" && p.Target != "" && len(p.Blockers) == 0 {
		why := "not deployed"
		if len(p.Notes) > 0 {
			why = p.Notes[len(p.Notes)-1]
		}
		return r.block(c, rep, order, why+": deploy it with up first, or leave its file out")
	}
	rep.letThrough = ""
	for _, b := range p.Blockers {
		if b == p.Unchecked && r.opts.AllowUnchecked && len(p.Steps) > 0 {
			// Named in the report when the step is sent (step): an upgrade found under way was
			// let through by the run that sent it.
			rep.letThrough = fmt.Sprintf("%s: %s → %s", c.Name, p.Running, p.Steps[0].To)
			continue
		}
		return r.block(c, rep, order, b)
	}
	return true
}

// block stops the rollout at cluster c, at order in its wave: nothing after it in the wave starts
// and no later wave, while the clusters before it go on to their goals (halt.passes).
func (r *run) block(c upgrade.Cluster, rep *ClusterReport, order int, why string) bool {
	rep.Outcome, rep.Reason = Stopped, why
	r.halt.block(order, c.Name, fmt.Sprintf("%s (%s) is blocked: %s", c.Name, c.File, why))
	r.say("%s: blocked: %s", c.Name, why)
	return false
}
