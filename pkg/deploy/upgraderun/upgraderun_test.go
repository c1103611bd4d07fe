package upgraderun_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgraderun"
)

// fleet is a cloud of clusters that upgrade as a real one does: an accepted upgrade reports the
// cluster moving, its node NotReady, for some reads, then the new version (or, for a cluster made
// to fail, the old one, degraded). Its stacks deploy a manifest's version by sending the upgrade.
type fleet struct {
	mu       sync.Mutex
	versions []string
	clusters map[string]*cluster
	// polls is how many reads an upgrade takes; took, when set, is how long it takes instead.
	polls int
	took  time.Duration
	// sent are the upgrades sent, "name from→to", in order; refreshed the stacks refreshed.
	sent, refreshed []string
	manifests       map[string]string
	// reads are when the clusters' health was read; readsAtSend the count of reads as each
	// upgrade in sent was sent; lints how often the cloud's lint ran.
	reads       []time.Time
	readsAtSend []int
	lints       int
}

type cluster struct {
	name, version, to, state string
	left                     int
	ends                     time.Time
	fail, removedAPIInUse    bool
	// apiUnreachable: the cluster's own API does not answer from here.
	apiUnreachable bool
}

func newFleet(polls int) *fleet {
	return &fleet{versions: []string{"1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"}, clusters: map[string]*cluster{},
		polls: polls, manifests: map[string]string{}}
}

// add puts a cluster of env at version in the cloud and returns its manifest, headed for goal.
func (f *fleet) add(name, env, version, goal string) upgrade.Cluster {
	f.clusters[name] = &cluster{name: name, version: version, state: "running"}
	f.manifests[name] = version
	return upgrade.Cluster{File: name + ".yaml", Kind: "DigitalOceanKubernetesCluster", Name: name, Env: env, ClusterName: name,
		Region: "nyc1", Version: version, Goal: goal, Cloud: cloudOf{f}}
}

func (f *fleet) stacks() upgraderun.Stacks {
	return upgraderun.Stacks{
		Write: func(c upgrade.Cluster, next, _ string) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.manifests[c.Name] = next
			return nil
		},
		Up: func(_ context.Context, c upgrade.Cluster) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			cl, want := f.clusters[c.Name], f.manifests[c.Name]
			switch {
			case cl.state == "upgrading":
				return fmt.Errorf("422 cluster is already upgrading")
			case want != cl.version:
				f.sent = append(f.sent, fmt.Sprintf("%s %s→%s", c.Name, cl.version, want))
				f.readsAtSend = append(f.readsAtSend, len(f.reads))
				cl.to, cl.state, cl.left, cl.ends = want, "upgrading", f.polls, time.Now().Add(f.took)
			}
			return nil
		},
		Refresh: func(_ context.Context, c upgrade.Cluster) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.refreshed = append(f.refreshed, c.Name)
			return nil
		},
	}
}

// cloudOf is the fleet as upgrade.Cloud.
type cloudOf struct{ f *fleet }

func (c cloudOf) Find(_ context.Context, _, name, _ string) (upgrade.Live, bool, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	cl, ok := c.f.clusters[name]
	if !ok {
		return upgrade.Live{}, false, nil
	}
	return upgrade.Live{ID: name, Version: cl.version}, true, nil
}

func (c cloudOf) Offer(context.Context, upgrade.Live) (upgrade.Offer, error) {
	return upgrade.Offer{Versions: c.f.versions}, nil
}

func (c cloudOf) Lint(context.Context, upgrade.Live) ([]upgrade.Diagnostic, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.lints++
	return nil, nil
}

func (c cloudOf) Health(_ context.Context, live upgrade.Live) (upgrade.Health, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	cl := c.f.clusters[live.ID]
	c.f.reads = append(c.f.reads, time.Now())
	if cl.state == "upgrading" {
		if cl.left--; (c.f.took == 0 && cl.left <= 0) || (c.f.took > 0 && time.Now().After(cl.ends)) {
			cl.state = "running"
			if cl.fail {
				cl.state = "degraded"
			} else {
				cl.version = cl.to
			}
		}
	}
	h := upgrade.Health{Version: cl.version, State: cl.state, Phase: upgrade.Settled, Nodes: 2, NodesReady: 2}
	switch cl.state {
	case "upgrading":
		h.Phase, h.NodesReady = upgrade.Moving, 1
	case "degraded":
		h.Phase = upgrade.Broken
	}
	return h, nil
}

// Objects lists the cluster's node, Ready unless it upgrades, and a FlowSchema applied at an API
// 1.32 removes where the cluster uses one.
func (c cloudOf) Objects(_ context.Context, live upgrade.Live) (upgrade.Lister, error) {
	c.f.mu.Lock()
	unreachable := c.f.clusters[live.ID].apiUnreachable
	c.f.mu.Unlock()
	if unreachable {
		return nil, errors.New("dial tcp: connection refused")
	}
	return func(_ context.Context, path string) ([]json.RawMessage, bool, error) {
		c.f.mu.Lock()
		defer c.f.mu.Unlock()
		cl := c.f.clusters[live.ID]
		switch {
		case path == "/api/v1/nodes":
			ready := "True"
			if cl.state == "upgrading" {
				ready = "False"
			}
			return []json.RawMessage{json.RawMessage(`{"status":{"conditions":[{"type":"Ready","status":"` + ready + `"}]}}`)}, true, nil
		case strings.Contains(path, "flowschemas") && cl.removedAPIInUse:
			applied, _ := json.Marshal(`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema"}`)
			return []json.RawMessage{json.RawMessage(`{"metadata":{"name":"old","annotations":{"` + upgrade.LastApplied + `":` + string(applied) + `}}}`)}, true, nil
		}
		return nil, true, nil
	}, nil
}

// quick are options whose reads are paced at a million a minute: the tests' clouds answer at once.
var quick = upgraderun.Options{Parallel: 1, Poll: time.Millisecond, StepTimeout: 5 * time.Second, ReadsAMinute: 1e6}

// steps are the steps of a dry run's waves, "name from→to", in order.
func steps(waves []upgrade.Wave) []string {
	var out []string
	for _, w := range waves {
		for _, p := range w.Plans {
			for _, s := range p.Steps {
				out = append(out, fmt.Sprintf("%s %s→%s", p.Name, s.From, s.To))
			}
		}
	}
	return out
}

func outcomes(r upgraderun.Report) map[string]string {
	out := map[string]string{}
	for _, w := range r.Waves {
		for _, c := range w.Clusters {
			out[c.Name] = c.Outcome
		}
	}
	return out
}

// fourEnvs is a fleet over four environments, two clusters each, all on 1.31.9-do.2 and headed
// for 1.33.1-do.0 (two steps each).
func fourEnvs(f *fleet) []upgrade.Cluster {
	var out []upgrade.Cluster
	for _, env := range []string{"prod", "staging", "dev", "test"} {
		for i := range 2 {
			out = append(out, f.add(fmt.Sprintf("%s-%d", env, i), env, "1.31.9-do.2", "1.33.1-do.0"))
		}
	}
	return out
}

// Promise: upgrade-apply-dry-run-equals-run
func TestARunTakesExactlyTheStepsItsDryRunPrintsInTheSameOrder(t *testing.T) {
	f := newFleet(3)
	clusters := fourEnvs(f)
	dry := steps(upgraderun.Plan(context.Background(), clusters, upgraderun.Options{Canary: 1}))
	if len(f.sent) != 0 {
		t.Fatalf("the dry run sent %v", f.sent)
	}
	r := upgraderun.Run(context.Background(), nil, clusters, upgraderun.Options{Canary: 1, Parallel: 1, Poll: time.Millisecond, StepTimeout: 5 * time.Second, ReadsAMinute: 1e6}, f.stacks())
	if r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	if !reflect.DeepEqual(f.sent, dry) {
		t.Errorf("the run sent\n%v\nthe dry run said\n%v", f.sent, dry)
	}
	if len(dry) != 16 || !strings.HasPrefix(dry[0], "dev-0 ") || !strings.HasPrefix(dry[15], "prod-1 ") {
		t.Errorf("the dry run's steps are not the fleet's two steps each, development first: %v", dry)
	}
	var names []string
	for _, w := range r.Waves {
		names = append(names, w.Name)
	}
	if want := []string{"canary", "development", "test", "staging", "production"}; !reflect.DeepEqual(names, want) {
		t.Errorf("waves %v, want %v", names, want)
	}
	for name, c := range f.clusters {
		if c.version != "1.33.1-do.0" || f.manifests[name] != "1.33.1-do.0" {
			t.Errorf("%s runs %s, its manifest says %s", name, c.version, f.manifests[name])
		}
	}
	if len(f.refreshed) != 8 {
		t.Errorf("refreshed %v, want each stack once at its goal", f.refreshed)
	}
}

func TestAWaveUpgradesItsClustersSideBySideAndEachStepOnce(t *testing.T) {
	f := newFleet(5)
	clusters := fourEnvs(f)
	opts := quick
	opts.Parallel = 2
	r := upgraderun.Run(context.Background(), nil, clusters, opts, f.stacks())
	if r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	want := steps(upgraderun.Plan(context.Background(), fourEnvs(newFleet(5)), upgraderun.Options{}))
	got := slices.Clone(f.sent)
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sent %v\nwant each step once: %v", got, want)
	}
	// No cluster of a wave is sent a step before every cluster of the wave before it ended.
	rank := map[string]int{"dev": 0, "test": 1, "staging": 2, "prod": 3}
	for i := 1; i < len(f.sent); i++ {
		before, after := strings.Split(f.sent[i-1], "-")[0], strings.Split(f.sent[i], "-")[0]
		if rank[after] < rank[before] {
			t.Errorf("%s was sent after %s", f.sent[i], f.sent[i-1])
		}
	}
}

// Promise: upgrade-apply-stops-at-a-failed-step
func TestAFailedUpgradeStopsTheRolloutAndTheSameRunFinishesOnceFixed(t *testing.T) {
	f := newFleet(2)
	clusters := fourEnvs(f)
	f.clusters["staging-0"].fail = true
	r := upgraderun.Run(context.Background(), nil, clusters, quick, f.stacks())
	if r.Stop != upgraderun.Failed || !strings.Contains(r.StopWhy, "staging-0") {
		t.Fatalf("stop %q %q, want failed at staging-0", r.Stop, r.StopWhy)
	}
	for _, s := range f.sent {
		if strings.HasPrefix(s, "prod-") {
			t.Errorf("a production cluster was sent %s", s)
		}
	}
	got := outcomes(r)
	if got["staging-0"] != upgraderun.Stopped || got["prod-0"] != upgraderun.Untouched || got["dev-1"] != upgraderun.Reached {
		t.Errorf("outcomes %v", got)
	}
	if f.manifests["staging-0"] != "1.31.9-do.2" {
		t.Errorf("the failed cluster's manifest says %s, not what it runs", f.manifests["staging-0"])
	}
	// Fixed: running again at its old version.
	f.clusters["staging-0"].fail, f.clusters["staging-0"].state = false, "running"
	sentBefore := len(f.sent)
	r = upgraderun.Run(context.Background(), nil, clusters, quick, f.stacks())
	if r.Stop != upgraderun.NotStopped {
		t.Fatalf("the second run stopped: %s %s", r.Stop, r.StopWhy)
	}
	again := f.sent[sentBefore:]
	for _, s := range again {
		if strings.HasPrefix(s, "dev-") || strings.HasPrefix(s, "test-") {
			t.Errorf("the second run sent %s to a cluster at its goal", s)
		}
	}
	if len(again) != 8 {
		t.Errorf("the second run sent %v: want staging-0's two steps, staging-1's remaining, and production's four", again)
	}
	for name, c := range f.clusters {
		if c.version != "1.33.1-do.0" {
			t.Errorf("%s runs %s", name, c.version)
		}
	}
}

// Promise: upgrade-apply-blocked-stops
func TestARemovedAPIInUseBlocksThatClusterAndNothingAfterItStarts(t *testing.T) {
	f := newFleet(1)
	clusters := fourEnvs(f)
	f.clusters["test-1"].removedAPIInUse = true
	r := upgraderun.Run(context.Background(), nil, clusters, quick, f.stacks())
	if r.Stop != upgraderun.Blocked || !strings.Contains(r.StopWhy, "FlowSchema old uses flowcontrol.apiserver.k8s.io/v1beta3") {
		t.Fatalf("stop %q %q", r.Stop, r.StopWhy)
	}
	got := outcomes(r)
	want := map[string]string{"dev-0": upgraderun.Reached, "dev-1": upgraderun.Reached, "test-0": upgraderun.Reached,
		"test-1": upgraderun.Stopped, "staging-0": upgraderun.Untouched, "staging-1": upgraderun.Untouched,
		"prod-0": upgraderun.Untouched, "prod-1": upgraderun.Untouched}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %v\nwant     %v", got, want)
	}
	if f.clusters["test-1"].version != "1.31.9-do.2" {
		t.Errorf("the blocked cluster was upgraded to %s", f.clusters["test-1"].version)
	}
}

// Promise: upgrade-apply-resumes
func TestAnUpgradeUnderWayWhenTheRunBeginsIsWaitedForNotSentAgain(t *testing.T) {
	f := newFleet(3)
	c := f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
	// An earlier run wrote the step and sent it, then was killed.
	f.manifests["dev-0"] = "1.32.2-do.0"
	cl := f.clusters["dev-0"]
	cl.state, cl.to, cl.left = "upgrading", "1.32.2-do.0", 3
	stacks := f.stacks()
	var said []string
	stacks.Say = func(line string) { said = append(said, line) }
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{c}, quick, stacks)
	if r.Stop != upgraderun.NotStopped || len(f.sent) != 0 {
		t.Fatalf("stop %q %q, sent %v: want the upgrade under way waited for and nothing sent", r.Stop, r.StopWhy, f.sent)
	}
	if !slices.ContainsFunc(said, func(l string) bool { return strings.HasPrefix(l, "dev-0: at 1.32.2-do.0, every node ready (") }) {
		t.Errorf("the step waited for was not said to end:\n%s", strings.Join(said, "\n"))
	}
	steps := r.Waves[0].Clusters[0].Steps
	if len(steps) != 1 || steps[0].Outcome != upgraderun.StepResumed || steps[0].To != "1.32.2-do.0" {
		t.Errorf("steps %+v", steps)
	}
}

// Promise: upgrade-apply-interrupt
func TestAFirstInterruptLetsTheStepInFlightEndAndStartsNothingMore(t *testing.T) {
	f := newFleet(3)
	clusters := fourEnvs(f)
	stopping := make(chan struct{})
	stacks := f.stacks()
	up := stacks.Up
	stacks.Up = func(ctx context.Context, c upgrade.Cluster) error {
		err := up(ctx, c)
		select {
		case <-stopping:
		default:
			close(stopping) // Ctrl-C right after the first step was sent
		}
		return err
	}
	r := upgraderun.Run(context.Background(), stopping, clusters, quick, stacks)
	if r.Stop != upgraderun.Interrupted {
		t.Fatalf("stop %q", r.Stop)
	}
	if len(f.sent) != 1 || f.clusters["dev-0"].version != "1.32.2-do.0" {
		t.Errorf("sent %v, dev-0 at %s: want the one step sent and ended", f.sent, f.clusters["dev-0"].version)
	}
	if got := outcomes(r); got["dev-0"] != upgraderun.Stopped || got["dev-1"] != upgraderun.Untouched {
		t.Errorf("outcomes %v", got)
	}
}

func TestAStepThatDoesNotEndHealthyInTimeFails(t *testing.T) {
	f := newFleet(1_000_000)
	c := f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
	opts := quick
	opts.StepTimeout = 20 * time.Millisecond
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{c}, opts, f.stacks())
	if r.Stop != upgraderun.Failed || !strings.Contains(r.StopWhy, "not healthy within 20ms") {
		t.Errorf("stop %q %q", r.Stop, r.StopWhy)
	}
}

// Promise: upgrade-apply-exit-codes
func TestAClusterNotYetDeployedStopsTheRolloutAsBlocked(t *testing.T) {
	f := newFleet(1)
	missing := f.add("dev-0", "dev", "1.31.9-do.2", "1.33.1-do.0")
	delete(f.clusters, "dev-0")
	later := f.add("test-0", "test", "1.31.9-do.2", "1.33.1-do.0")
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{later, missing}, quick, f.stacks())
	if r.Stop != upgraderun.Blocked || r.ExitCode() != 3 || !strings.Contains(r.StopWhy, "deploy it with up first") {
		t.Errorf("stopped %q (exit %d): %s; want blocked, exit 3, saying to deploy it first", r.Stop, r.ExitCode(), r.StopWhy)
	}
	if len(f.sent) != 0 || outcomes(r)["test-0"] != upgraderun.Untouched {
		t.Errorf("sent %v, test-0 %s; want nothing after the cluster not deployed", f.sent, outcomes(r)["test-0"])
	}
}

// Promise: upgrade-apply-dry-run-equals-run-in-parallel
func TestClustersBeforeABlockedOneInTheWaveTakeTheDryRunsStepsAtAnyParallel(t *testing.T) {
	for _, parallel := range []int{1, 3} {
		t.Run(fmt.Sprintf("--parallel %d", parallel), func(t *testing.T) {
			f := newFleet(3)
			clusters := []upgrade.Cluster{
				f.add("dev-0", "dev", "1.31.9-do.2", "1.33.1-do.0"),
				f.add("dev-1", "dev", "1.31.9-do.2", "1.33.1-do.0"),
				f.add("dev-2", "dev", "1.31.9-do.2", "1.33.1-do.0"),
			}
			delete(f.clusters, "dev-1") // not deployed: blocked
			var dry []string
			for _, w := range upgraderun.Plan(context.Background(), clusters, upgraderun.Options{}) {
				for _, p := range w.Plans {
					if upgraderun.Stops(p) {
						break
					}
					dry = append(dry, steps([]upgrade.Wave{{Plans: []upgrade.Assessment{p}}})...)
				}
			}
			opts := quick
			opts.Parallel = parallel
			r := upgraderun.Run(context.Background(), nil, clusters, opts, f.stacks())
			if r.Stop != upgraderun.Blocked || !reflect.DeepEqual(f.sent, dry) || len(dry) != 2 {
				t.Errorf("stopped %q; sent %v, the dry run said %v", r.Stop, f.sent, dry)
			}
			if got := outcomes(r); got["dev-0"] != upgraderun.Reached || got["dev-2"] != upgraderun.Untouched {
				t.Errorf("outcomes %v: want dev-0 at its goal and dev-2 untouched", got)
			}
		})
	}
}

func TestTheSummaryNamesTheUncheckedStepsThisRunSentAndNoOther(t *testing.T) {
	f := newFleet(2)
	resumed := f.add("dev-0", "dev", "1.31.9-do.2", "1.33.1-do.0")
	sent := f.add("dev-1", "dev", "1.31.9-do.2", "1.33.1-do.0")
	// dev-0's first step was sent by a run that was killed; neither cluster's API answers.
	f.manifests["dev-0"] = "1.32.2-do.0"
	f.clusters["dev-0"].state, f.clusters["dev-0"].to, f.clusters["dev-0"].left = "upgrading", "1.32.2-do.0", 2
	f.clusters["dev-0"].apiUnreachable, f.clusters["dev-1"].apiUnreachable = true, true
	opts := quick
	opts.AllowUnchecked = true
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{resumed, sent}, opts, f.stacks())
	if r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	if want := []string{"dev-1: 1.31.9-do.2 → 1.32.2-do.0"}; !reflect.DeepEqual(r.Unchecked, want) {
		t.Errorf("let through %q, want %q: dev-0's unchecked step was sent by the earlier run", r.Unchecked, want)
	}
}

func TestARolloutExitsByWhatStoppedIt(t *testing.T) {
	cases := []struct {
		stop upgraderun.Stop
		want int
	}{
		{upgraderun.NotStopped, 0},
		{upgraderun.Blocked, 3},
		{upgraderun.Failed, 1},
		{upgraderun.Interrupted, 130},
	}
	for _, tc := range cases {
		if got := (upgraderun.Report{Stop: tc.stop}).ExitCode(); got != tc.want {
			t.Errorf("a rollout stopped %q exits %d, want %d", tc.stop, got, tc.want)
		}
	}
	blocked := []upgrade.Wave{{Name: "development", Plans: []upgrade.Assessment{{Name: "a", Running: "1.31.9-do.2", Target: "1.32.2-do.0", Blockers: []string{"x"}}}}}
	if got := upgraderun.PlanExitCode(blocked); got != 3 {
		t.Errorf("a dry run that stops at a blocked cluster exits %d, want 3", got)
	}
	if got := upgraderun.PlanExitCode(upgraderun.Plan(context.Background(), fourEnvs(newFleet(1)), upgraderun.Options{})); got != 0 {
		t.Errorf("a dry run that stops nowhere exits %d, want 0", got)
	}
}

// Promise: upgrade-apply-maintenance-window
func TestWithTheWindowFlagAStepWaitsForItsClustersWindowToOpen(t *testing.T) {
	f := newFleet(1)
	c := f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
	// A clock that reads 30 ms before the window (any day at 03:00 UTC) opens.
	start := time.Now()
	opens := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	c.Window = &upgrade.Window{Day: "any", Start: "03:00"}
	opts := quick
	opts.InWindow = true
	opts.Now = func() time.Time { return opens.Add(-30*time.Millisecond + time.Since(start)) }
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{c}, opts, f.stacks())
	if r.Stop != upgraderun.NotStopped || len(f.sent) != 1 {
		t.Fatalf("stop %q %q, sent %v", r.Stop, r.StopWhy, f.sent)
	}
	if sent := r.Waves[0].Clusters[0].Steps[0].Start.Sub(start); sent < 30*time.Millisecond {
		t.Errorf("the step started %s into the run, before its window opened (30ms)", sent)
	}
	// Without the flag it starts at once.
	f = newFleet(1)
	c = f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
	c.Window = &upgrade.Window{Day: "any", Start: "03:00"}
	opts.InWindow = false
	opts.Now = func() time.Time { return opens.Add(-time.Hour) }
	if r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{c}, opts, f.stacks()); r.Stop != upgraderun.NotStopped || len(f.sent) != 1 {
		t.Errorf("without the flag: stop %q, sent %v", r.Stop, f.sent)
	}
}

func TestAClusterAtItsGoalIsLeftAloneAndItsManifestMadeToNameIt(t *testing.T) {
	f := newFleet(1)
	at := f.add("dev-0", "dev", "1.33.1-do.0", "1.33.1-do.0")
	// Upgraded outside clusterplane: the cloud runs the goal, the manifest names an older version.
	behind := f.add("dev-1", "dev", "1.33.1-do.0", "1.33.1-do.0")
	behind.Version, f.manifests["dev-1"] = "1.31.9-do.2", "1.31.9-do.2"
	r := upgraderun.Run(context.Background(), nil, []upgrade.Cluster{at, behind}, quick, f.stacks())
	if r.Stop != upgraderun.NotStopped || len(f.sent) != 0 {
		t.Fatalf("stop %q %q, sent %v", r.Stop, r.StopWhy, f.sent)
	}
	if got := outcomes(r); got["dev-0"] != upgraderun.AtGoal || got["dev-1"] != upgraderun.AtGoal {
		t.Errorf("outcomes %v", got)
	}
	if f.manifests["dev-1"] != "1.33.1-do.0" || !reflect.DeepEqual(f.refreshed, []string{"dev-1"}) {
		t.Errorf("dev-1's manifest says %s, refreshed %v: want the goal written and only its stack refreshed", f.manifests["dev-1"], f.refreshed)
	}
}

// Promise: upgrade-apply-stops-at-a-failed-step
func TestAStepStoppedWhileTheCloudMayStillTakeItLeavesTheManifestNamingIt(t *testing.T) {
	cases := []struct {
		name string
		// stop ends the step: a second Ctrl-C (the context ends), or the step's timeout.
		stop func(cancel context.CancelFunc, opts *upgraderun.Options)
		want upgraderun.Stop
	}{
		{"a second Ctrl-C", func(cancel context.CancelFunc, _ *upgraderun.Options) { cancel() }, upgraderun.Interrupted},
		{"the step's timeout", func(_ context.CancelFunc, opts *upgraderun.Options) { opts.StepTimeout = 20 * time.Millisecond }, upgraderun.Failed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(1_000_000)
			c := f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := quick
			stacks := f.stacks()
			up := stacks.Up
			stacks.Up = func(ctx context.Context, c upgrade.Cluster) error {
				err := up(ctx, c)
				tc.stop(cancel, &opts)
				return err
			}
			tc.stop(func() {}, &opts) // a timeout is set before the run
			r := upgraderun.Run(ctx, nil, []upgrade.Cluster{c}, opts, stacks)
			if r.Stop != tc.want {
				t.Errorf("stop %q %q, want %q", r.Stop, r.StopWhy, tc.want)
			}
			if f.manifests["dev-0"] != "1.32.2-do.0" {
				t.Errorf("the manifest says %s while the cloud upgrades to 1.32.2-do.0", f.manifests["dev-0"])
			}
			if r.ExitCode() != map[upgraderun.Stop]int{upgraderun.Interrupted: 130, upgraderun.Failed: 1}[tc.want] {
				t.Errorf("exit %d", r.ExitCode())
			}
		})
	}
}

func TestEachStepInFlightIsToldAsItGoesAndClearedWhenItEnds(t *testing.T) {
	f := newFleet(3)
	c := f.add("dev-0", "dev", "1.31.9-do.2", "1.32.2-do.0")
	var mu sync.Mutex
	var lines []string
	stacks := f.stacks()
	stacks.Progress = func(cluster, line string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, cluster+"|"+line)
	}
	upgraderun.Run(context.Background(), nil, []upgrade.Cluster{c}, quick, stacks)
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "dev-0|dev-0: 1.31.9-do.2 → 1.32.2-do.0, deploying") ||
		!strings.Contains(strings.Join(lines, "\n"), "upgrading at 1.31.9-do.2, 1 of 2 nodes running") || lines[len(lines)-1] != "dev-0|" {
		t.Errorf("the step in flight was told:\n%s", strings.Join(lines, "\n"))
	}
}

// Promise: upgrade-apply-reads-paced
func TestTheReadsOfAllClustersTogetherKeepToTheRolloutsPace(t *testing.T) {
	f := newFleet(12)
	var clusters []upgrade.Cluster
	for i := range 5 {
		clusters = append(clusters, f.add(fmt.Sprintf("dev-%d", i), "dev", "1.31.9-do.2", "1.32.2-do.0"))
	}
	opts := quick
	opts.Parallel, opts.ReadsAMinute = 5, 6000 // one read each 10 ms, five at once
	if r := upgraderun.Run(context.Background(), nil, clusters, opts, f.stacks()); r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	// Five clusters polling every millisecond would read some 1,000 times in 200 ms; the pace
	// lets 20 through in that time, and the five of its burst.
	const window, most = 200 * time.Millisecond, 25
	for i, j := 0, 0; i < len(f.reads); i++ {
		for f.reads[i].Sub(f.reads[j]) >= window {
			j++
		}
		if n := i - j + 1; n > most {
			t.Fatalf("%d reads within %s, want at most %d", n, window, most)
		}
	}
	if len(f.reads) < 5*12 {
		t.Errorf("%d reads: the clusters' upgrades were not waited for", len(f.reads))
	}
}

func TestOnceStepsHaveEndedAWaitReadsNearWhenItsStepShouldEndNotAllAlong(t *testing.T) {
	f := newFleet(0)
	f.took = 300 * time.Millisecond
	clusters := []upgrade.Cluster{
		f.add("dev-0", "dev", "1.31.9-do.2", "1.33.1-do.0"),
		f.add("dev-1", "dev", "1.31.9-do.2", "1.33.1-do.0"),
		f.add("dev-2", "dev", "1.31.9-do.2", "1.33.1-do.0"),
	}
	opts := quick
	opts.Poll = 10 * time.Millisecond
	if r := upgraderun.Run(context.Background(), nil, clusters, opts, f.stacks()); r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	if len(f.sent) != 6 {
		t.Fatalf("sent %v, want two steps each", f.sent)
	}
	// A step's reads: its wait's, and the next step's read of the cluster before it is sent.
	perStep := func(i int) int {
		end := len(f.reads)
		if i+1 < len(f.readsAtSend) {
			end = f.readsAtSend[i+1]
		}
		return end - f.readsAtSend[i]
	}
	if first := perStep(0); first < 15 {
		t.Errorf("the first step, with nothing to expect, was read %d times; want one read every 10 ms of its 300", first)
	}
	for i := 3; i < 6; i++ {
		if n := perStep(i); n > 7 {
			t.Errorf("step %d (%s) was read %d times; want the few reads around its expected end", i, f.sent[i], n)
		}
	}
}

func TestARunChecksEachClusterOnceBeforeEachStepAndNotBeforeItsTurn(t *testing.T) {
	f := newFleet(1)
	if r := upgraderun.Run(context.Background(), nil, fourEnvs(f), quick, f.stacks()); r.Stop != upgraderun.NotStopped {
		t.Fatalf("the rollout stopped: %s %s", r.Stop, r.StopWhy)
	}
	if len(f.sent) != 16 || f.lints != 16 {
		t.Errorf("%d steps sent and the cloud's lint run %d times; want one lint a step", len(f.sent), f.lints)
	}
}
