package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
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
// RateLimit-Remaining, as the run's answers said it) sends a share of what is left at once, then,
// from when the hour's oldest request stops counting (RateLimit-Reset), a share of the hour's limit
// a minute: by any time from its start, its stacks start no more than that; and it says so. A run
// within what is left is not held by it.
// Promise: paced-to-the-hour-left
func TestARunIsPacedToWhatTheAccountHasLeftOfItsHour(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name             string
		clusters, left   int
		reset            time.Duration
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
		{name: "a drift of 2 clusters and 2 pools with none left for 10 minutes", clusters: 2, left: 0, reset: 10 * time.Minute, wantByHour: true,
			wantMin: 66,
			wantLine: "digitalocean: about 5 requests for 4 stacks of an account of 2 clusters, more than the account has left of its 5000 an hour (0): " +
				"0 at once, then 66 a minute from 00:10:00 UTC, when the hour's oldest stops counting: at least 10 minutes"},
		{name: "a drift of 50 clusters and 50 pools with 4000 of 5000 left", clusters: 50, left: 4000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			targets := paceFleet(tt.clusters, 250, 8)
			hour := cloudapi.Allowance{Limit: 5000, Remaining: tt.left, At: start}
			if tt.reset > 0 {
				hour.Reset = start.Add(tt.reset)
			}
			p := queue.NewPacer(targets, queue.Refreshing, queue.Runs{Creates: noCreates.Creates,
				Allowance: func(cloud string) (cloudapi.Allowance, bool) { return hour, cloud == "digitalocean" }})
			b := p.Budgets()[0]
			if b.Hour == nil || b.Hour.Remaining != tt.left || b.ByHour != tt.wantByHour || b.Paces() != tt.wantByHour {
				t.Fatalf("budget %+v, want the hour's %d left heard and paced by it: %v", b, tt.left, tt.wantByHour)
			}
			if tt.wantByHour && b.String() != tt.wantLine {
				t.Errorf("it says:\n%s\nwant:\n%s", b, tt.wantLine)
			}
			clock := &fakeTime{at: start}
			p.Now, p.Sleep = clock.now, clock.sleep
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
			// and the minutes' share since the hour's oldest stopped counting (and one stack's
			// worth: a start reserves its whole cost).
			sent := 0
			for i, at := range starts {
				sent += costs[i]
				since := max(at.Sub(start.Add(tt.reset)), 0)
				if allowed := float64(tt.wantNow) + since.Minutes()*float64(tt.wantMin) + 2; float64(sent) > allowed {
					t.Fatalf("by %v the run started %d requests, want at most %.1f", at.Sub(start), sent, allowed)
				}
			}
			if tt.wantNow == 0 && starts[0].Before(start.Add(tt.reset)) {
				t.Errorf("with none left the first stack started %v in, want not before the hour's oldest stops counting (%v)",
					starts[0].Sub(start), tt.reset)
			}
			if took := clock.at.Sub(start).Minutes(); took < b.Minutes()-0.05 {
				t.Errorf("the run took %.2f minutes, want at least the %.2f it said", took, b.Minutes())
			}
		})
	}
}

// What the account has left of its hour is asked of the cloud only when it matters, one request
// each time: at the start of a run paced by the minute whose answers said nothing yet, and at the
// end of a run paced to what was left. A run paced by neither sends nothing of its own, and a
// cancelled run asks nothing at its end; a cloud whose stacks use two tokens is never asked.
func TestTheAccountsHourIsAskedOnlyWhenTheRunIsPacedByIt(t *testing.T) {
	do := fakedo.New(t, "hour-token")
	do.AcceptToken("other-token")
	do.CountHourly(5000)
	t.Setenv(digitalocean.TokenEnv, "hour-token")
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	asks := func() int { return len(do.Requests(http.MethodGet)) }
	fleet := func(n int) []deploytarget.Target {
		var out []deploytarget.Target
		for i := range n {
			out = append(out, minimalCluster(t, fmt.Sprintf("c%04d", i)))
		}
		return out
	}
	small, large := fleet(3), fleet(300)
	r := Request{Op: Drift(false), Pace: queue.Refreshing, Say: func(string) {}}
	for _, tt := range []struct {
		name      string
		targets   []deploytarget.Target
		left      int
		heard     bool
		cancelled bool
		wantAsks  int
		wantHour  bool
	}{
		{name: "three stacks, nothing heard: not paced, nothing asked", targets: small, left: 4000},
		{name: "three stacks, 3 left heard: paced by the hour, asked at the end", targets: small, left: 3, heard: true, wantAsks: 1, wantHour: true},
		{name: "three stacks, 3 left heard, the run cancelled: nothing asked at the end", targets: small, left: 3, heard: true, cancelled: true,
			wantHour: true},
		{name: "300 stacks, nothing heard: paced by the minute, asked at the start", targets: large, left: 4000, wantAsks: 1},
		{name: "300 stacks, 100 left, nothing heard: asked at the start and at the end", targets: large, left: 100, wantAsks: 2, wantHour: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			do.LeaveHourly("hour-token", tt.left, 10*time.Minute)
			heard := queue.Listen()
			defer heard.Stop()
			if tt.heard {
				hour, _, _ := (digitalocean.Driver{}).Allowance(context.Background(), do.URL(), "hour-token")
				heard.Hear("digitalocean", cloudapi.AccountOf("hour-token"), hour)
			}
			do.Reset()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := r.pacer(ctx, tt.targets, nil, nil, nil, runlist.New(), heard)
			if tt.cancelled {
				cancel()
			}
			r.sayHourLeft(ctx, accountsOf(tt.targets), p.Budgets())
			if got := asks(); got != tt.wantAsks || p.Budgets()[0].ByHour != tt.wantHour {
				t.Errorf("asked %d times, paced by the hour %v; want %d, %v", got, p.Budgets()[0].ByHour, tt.wantAsks, tt.wantHour)
			}
		})
	}
	// Two tokens on one cloud: neither's hour paces the run, and neither is asked.
	two := append(fleet(299), clusterWithToken(t, "other", "other-token"))
	do.Reset()
	p := r.pacer(context.Background(), two, nil, nil, nil, runlist.New(), queue.Listen())
	if got := asks(); got != 0 || p.Budgets()[0].Hour != nil {
		t.Errorf("a cloud of two tokens: asked %d times, hour %+v; want never asked, no hour", got, p.Budgets()[0].Hour)
	}
}

// clusterWithToken is the minimal DigitalOcean cluster named name whose stack input names its own
// API token.
func clusterWithToken(t *testing.T, name, token string) deploytarget.Target {
	t.Helper()
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	in := k.NewStackInput()
	text := "target:\n  apiVersion: digitalocean.clusterplane.dev/v1\n  kind: DigitalOceanKubernetesCluster\n  metadata:\n    name: " + name +
		"\n  spec:\n    clusterName: " + name + "\n    region: fra1\n    kubernetesVersion: 1.31.1-do.5\n    defaultNodePool:\n" +
		"      size: s-2vcpu-4gb\n      nodeCount: 2\nproviderConfig:\n  apiToken: " + token + "\n"
	if err := stackinput.Parse([]byte(text), "c.stack-input.yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("c.stack-input.yaml", k, in, "")
}
