package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// paceFleet is an account of clusters clusters and as many more pools, adopted on a cloud that
// allows perMinute requests a minute: a cluster's adoption costs clusterCost, a pool's import
// lists the whole account 20 a page, twice, and a refresh reads the cluster or pool once; the
// clusters' adoption and refresh, and the pools' adoption, look up by name in the run's one list
// of the account, 200 a page (the DigitalOcean kinds' estimates, as traced).
func paceFleet(clusters, perMinute, clusterCost int) []deploytarget.Target {
	list := func(n int) int { return (n + 199) / 200 }
	cluster := &kinds.Cost{Cloud: "digitalocean", PerMinute: perMinute, List: list,
		Adopt:   kinds.Estimate{Own: func(int) int { return clusterCost }, Lists: true},
		Refresh: kinds.Estimate{Own: func(int) int { return 1 }, Lists: true}}
	pool := &kinds.Cost{Cloud: "digitalocean", PerMinute: perMinute, List: list,
		Adopt:   kinds.Estimate{Own: func(n int) int { return 2 * ((n+19)/20 + 1) }, Lists: true},
		Refresh: kinds.Estimate{Own: func(int) int { return 1 }}}
	clusterTable := &effects.Table{Types: map[effects.Role]string{effects.Cluster: "cluster"}}
	poolTable := &effects.Table{Types: map[effects.Role]string{effects.NodePool: "pool"}}
	var out []deploytarget.Target
	for i := range clusters {
		out = append(out, deploytarget.Target{Kind: kinds.Kind{Project: "c", Effects: clusterTable, Cost: cluster}, Stack: fmt.Sprint(i)},
			deploytarget.Target{Kind: kinds.Kind{Project: "p", Effects: poolTable, Cost: pool}, Stack: fmt.Sprint(i)})
	}
	return out
}

// noCreates paces a run none of whose stacks creates anything.
var noCreates = queue.Runs{Creates: func(deploytarget.Target) bool { return false }}

// fakeTime is a clock that sleeping moves on.
type fakeTime struct{ at time.Time }

func (f *fakeTime) now() time.Time { return f.at }
func (f *fakeTime) sleep(_ context.Context, d time.Duration) error {
	f.at = f.at.Add(d)
	return nil
}

func TestARunOfAHundredClustersAndPoolsStartsNoMoreThanDigitalOceansLimitInAnyMinute(t *testing.T) {
	for _, tt := range []struct {
		name            string
		op              queue.Requests
		clusters        int
		wantRequests    int
		wantPaced       int
		wantLeastMinute float64
	}{
		// 100 clusters of 8 and 100 pools of 2*(5+1), and the run's one page of the account's
		// list: paced at 80 % of 250.
		{name: "adopt of 100 clusters and 100 pools", op: queue.Adopting, clusters: 100, wantRequests: 2001, wantPaced: 200, wantLeastMinute: 10.005},
		// 3 clusters and 3 pools: 37 requests, under a minute's share: not paced, not slowed.
		{name: "adopt of 3 clusters and 3 pools", op: queue.Adopting, clusters: 3, wantRequests: 37, wantPaced: 0},
		// 200 reads and the run's one page of the list.
		{name: "drift of 100 clusters and 100 pools", op: queue.Refreshing, clusters: 100, wantRequests: 201, wantPaced: 200, wantLeastMinute: 1.005},
		{name: "drift of 50 clusters and 50 pools", op: queue.Refreshing, clusters: 50, wantRequests: 101, wantPaced: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			targets := paceFleet(tt.clusters, 250, 8)
			p := queue.NewPacer(targets, tt.op, noCreates)
			if len(p.Budgets()) != 1 {
				t.Fatalf("budgets %+v, want one for digitalocean", p.Budgets())
			}
			b := p.Budgets()[0]
			if b.Requests != tt.wantRequests || b.Paced != tt.wantPaced || b.Clusters != tt.clusters {
				t.Fatalf("budget %+v, want %d requests for %d clusters paced at %d", b, tt.wantRequests, tt.clusters, tt.wantPaced)
			}
			if b.Minutes() != tt.wantLeastMinute {
				t.Errorf("at least %v minutes, want %v", b.Minutes(), tt.wantLeastMinute)
			}
			clock := &fakeTime{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			p.Now, p.Sleep = clock.now, clock.sleep
			start := clock.at
			type started struct {
				at   time.Time
				cost int
			}
			var starts []started
			// As fast as the pacer lets them: every target asks the moment the last one started,
			// the first with the run's list.
			for i, target := range targets {
				if err := p.Wait(context.Background(), target); err != nil {
					t.Fatal(err)
				}
				cost := tt.op(target.Cost).Own(tt.clusters)
				if i == 0 {
					cost += target.Cost.List(tt.clusters)
				}
				starts = append(starts, started{clock.at, cost})
			}
			if tt.wantPaced == 0 && clock.at != start {
				t.Errorf("a run within a minute's share waited %v, want no wait", clock.at.Sub(start))
			}
			// In any 60 seconds, the imports started ask at most the share and one import more:
			// under the limit of 250.
			most := 0
			for i := range starts {
				sum := 0
				for j := i; j < len(starts) && starts[j].at.Sub(starts[i].at) < time.Minute; j++ {
					sum += starts[j].cost
				}
				most = max(most, sum)
			}
			if limit := int(float64(250)*queue.Share) + 12; most > limit || most >= 250 {
				t.Errorf("the busiest minute starts imports of %d requests, want at most %d (under 250)", most, limit)
			}
			if took := clock.at.Sub(start).Minutes(); took < tt.wantLeastMinute-0.1 {
				t.Errorf("the run took %.1f minutes, want at least %.1f", took, tt.wantLeastMinute-0.1)
			}
		})
	}
}

func TestPacingStopsWaitingWhenTheRunIsCancelled(t *testing.T) {
	p := queue.NewPacer(paceFleet(100, 250, 8), queue.Adopting, noCreates)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var err error
	for _, target := range paceFleet(100, 250, 8) {
		if err = p.Wait(ctx, target); err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("every wait returned nil on a cancelled run, want the cancellation")
	}
}

func TestATargetWithoutACostOrACloudWithoutALimitIsNeverHeld(t *testing.T) {
	p := queue.NewPacer([]deploytarget.Target{{Kind: kinds.Kind{Project: "x"}, Stack: "y"}}, queue.Refreshing, queue.Runs{})
	if len(p.Budgets()) != 0 {
		t.Errorf("budgets %+v, want none", p.Budgets())
	}
	if err := p.Wait(context.Background(), deploytarget.Target{Kind: kinds.Kind{Project: "x"}, Stack: "y"}); err != nil {
		t.Error(err)
	}
	var none *queue.Pacer
	if err := none.Wait(context.Background(), paceFleet(1, 250, 8)[0]); err != nil {
		t.Error(err)
	}
}

// A status --drift on 1,000 clusters whose fleet scan vouches for 997 of them takes seconds. The
// estimate counts only the stacks left to the engine, and says nothing when they fit in a
// minute's share; it counts the run's one list of the account once, not at all when the fleet
// scan made it, and again for each stack an up creates.
func TestTheRunsEstimateCountsOnlyTheStacksTheFleetScanLeavesToTheEngine(t *testing.T) {
	var clusters []deploytarget.Target
	for _, target := range paceFleet(1000, 250, 8) {
		if target.Project == "c" {
			clusters = append(clusters, target)
		}
	}
	vouched := func(left int) map[string]deploy.Scanned {
		scanned := map[string]deploy.Scanned{}
		for _, target := range clusters[left:] {
			scanned[target.Key()] = deploy.Scanned{Unchanged: true}
		}
		return scanned
	}
	fresh := func(left int) map[string]deploy.Scanned {
		scanned := vouched(left)
		for _, target := range clusters[:left] {
			scanned[target.Key()] = deploy.Scanned{HoldsNothing: true}
		}
		return scanned
	}
	// listed are a run's lists holding one of the account, as the fleet scan leaves them.
	listed := func() *runlist.Lists {
		lists := runlist.New()
		if _, err := lists.Get(runlist.Account{Cloud: "digitalocean", API: "https://api.example", Token: "a1b2"}, func() (any, error) { return []string{}, nil }); err != nil {
			t.Fatal(err)
		}
		return lists
	}
	drift, up, refresh := Drift(false), Up(deploy.UpOptions{}), Refresh(deploy.RefreshOptions{})
	tests := []struct {
		name    string
		op      Step
		scanned map[string]deploy.Scanned
		kept    map[string]bool
		lists   *runlist.Lists
		want    string // the line said, "" for none
	}{
		{"with no scan every stack is estimated, and the account listed once", drift, nil, nil, runlist.New(),
			"drift paces its requests to stay under the cloud's rate limit: digitalocean: about 1005 requests for 1000 stacks " +
				"of an account of 1000 clusters, paced at 200 a minute (it allows 250): at least 5 minutes"},
		{"the 3 stacks the scan leaves fit in a minute, so nothing is said", drift, vouched(3), nil, listed(), ""},
		{"the 300 stacks the scan leaves are estimated alone, on the scan's list", drift, vouched(300), nil, listed(),
			"drift paces its requests to stay under the cloud's rate limit: digitalocean: about 300 requests for 300 stacks " +
				"of an account of 1000 clusters, paced at 200 a minute (it allows 250): at least 2 minutes"},
		{"a scan that could not list the account leaves the list to the run", drift, vouched(300), nil, runlist.New(),
			"drift paces its requests to stay under the cloud's rate limit: digitalocean: about 305 requests for 300 stacks " +
				"of an account of 1000 clusters, paced at 200 a minute (it allows 250): at least 2 minutes"},
		{"each stack an up creates lists the account again after its create", up, fresh(300), nil, listed(),
			"up paces its requests to stay under the cloud's rate limit: digitalocean: about 1800 requests for 300 stacks " +
				"of an account of 1000 clusters, paced at 200 a minute (it allows 250): at least 9 minutes"},
		{"stacks --changed-since leaves out are not estimated", drift, nil, map[string]bool{clusters[0].Key(): true}, runlist.New(), ""},
		{"a refresh runs no program, so no stack looks itself up in a list of the account", refresh, nil, nil, runlist.New(),
			"refresh paces its requests to stay under the cloud's rate limit: digitalocean: about 1000 requests for 1000 stacks " +
				"of an account of 1000 clusters, paced at 200 a minute (it allows 250): at least 5 minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var said []string
			pace := queue.Refreshing
			if tt.op.Operation() == operation.Refresh {
				pace = queue.RefreshingByID
			}
			r := Request{Op: tt.op, Pace: pace, Say: func(line string) { said = append(said, line) }}
			r.pacer(context.Background(), clusters, tt.scanned, tt.kept, nil, tt.lists, nil)
			if got := strings.Join(said, "\n"); got != tt.want {
				t.Errorf("said:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// A run that would send more than the account has left of its requests an hour (DigitalOcean's
// RateLimit-Remaining, as the run's answers said it) sends a share of what is left at once, then a
// share of the hour's limit a minute: in every stretch of time from its start, its stacks start no
// more than that; and it says so. A run within what is left is not held by it.
// Promise: paced-to-the-hour-left
func TestARunIsPacedToWhatTheAccountHasLeftOfItsHour(t *testing.T) {
	for _, tt := range []struct {
		name             string
		clusters, left   int
		wantByHour       bool
		wantNow, wantMin int
		wantLine         string
	}{
		{name: "a drift of 50 clusters and 50 pools with 30 of 5000 left", clusters: 50, left: 30, wantByHour: true, wantNow: 24, wantMin: 66,
			wantLine: "digitalocean: about 101 requests for 100 stacks of an account of 50 clusters, more than the account has left of its 5000 an hour (30): " +
				"24 at once, then 66 a minute as the hour's oldest stop counting: at least 1 minute"},
		{name: "a drift of 2 clusters and 2 pools with 2 of 5000 left", clusters: 2, left: 2, wantByHour: true, wantNow: 1, wantMin: 66,
			wantLine: "digitalocean: about 5 requests for 4 stacks of an account of 2 clusters, more than the account has left of its 5000 an hour (2): " +
				"1 at once, then 66 a minute as the hour's oldest stop counting: at least 4 seconds"},
		{name: "a drift of 50 clusters and 50 pools with 4000 of 5000 left", clusters: 50, left: 4000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			targets := paceFleet(tt.clusters, 250, 8)
			hour := cloudapi.Allowance{Limit: 5000, Remaining: tt.left}
			p := queue.NewPacer(targets, queue.Refreshing, queue.Runs{Creates: noCreates.Creates,
				Allowance: func(cloud string) (cloudapi.Allowance, bool) { return hour, cloud == "digitalocean" }})
			b := p.Budgets()[0]
			if b.Hour == nil || b.Hour.Remaining != tt.left || b.ByHour != tt.wantByHour || b.Paces() != tt.wantByHour {
				t.Fatalf("budget %+v, want the hour's %d left heard and paced by it: %v", b, tt.left, tt.wantByHour)
			}
			if tt.wantByHour && b.String() != tt.wantLine {
				t.Errorf("it says:\n%s\nwant:\n%s", b, tt.wantLine)
			}
			clock := &fakeTime{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			p.Now, p.Sleep = clock.now, clock.sleep
			start := clock.at
			var starts []time.Time
			var costs []int
			for i, target := range targets {
				if err := p.Wait(context.Background(), target); err != nil {
					t.Fatal(err)
				}
				cost := 1
				if i == 0 {
					cost++ // the run's one list of the account
				}
				starts, costs = append(starts, clock.at), append(costs, cost)
			}
			if !tt.wantByHour {
				if clock.at != start {
					t.Errorf("a run within what is left waited %v, want none", clock.at.Sub(start))
				}
				return
			}
			// By any time after the start, the stacks started ask at most what was let go at once
			// and the minutes' share since (and one stack's worth: a start reserves its whole cost).
			sent := 0
			for i, at := range starts {
				sent += costs[i]
				allowed := float64(tt.wantNow) + at.Sub(start).Minutes()*float64(tt.wantMin) + 2
				if float64(sent) > allowed {
					t.Fatalf("by %v the run started %d requests, want at most %.1f", at.Sub(start), sent, allowed)
				}
			}
			if took := clock.at.Sub(start).Minutes(); took < b.Minutes()-0.05 {
				t.Errorf("the run took %.2f minutes, want at least the %.2f it said", took, b.Minutes())
			}
		})
	}
}
