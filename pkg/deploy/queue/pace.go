package queue

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// Share is the part of a cloud's rate limit a run paces its operations to: the rest is room
// for the spread of one operation's requests over its seconds (the pacer spaces the starts, not
// each request the provider plugins send) and for whatever else uses the same token meanwhile.
const Share = 0.8

// Requests picks one operation's estimate from a kind's costs.
type Requests func(c *kinds.Cost) kinds.Estimate

// The operations a run is paced for: an adopt; a drift or another refreshing preview, which
// runs the stack's program and so its look-up by name; a refresh, which reads each resource by
// its id and runs no program, so that no stack of it looks itself up in a list of the account.
var (
	Adopting       Requests = func(c *kinds.Cost) kinds.Estimate { return c.Adopt }
	Refreshing     Requests = func(c *kinds.Cost) kinds.Estimate { return c.Refresh }
	RefreshingByID Requests = func(c *kinds.Cost) kinds.Estimate {
		e := c.Refresh
		e.Lists = false
		return e
	}
)

// Reading is the pace of an operation that reads the cloud only when refreshing (a preview, an
// up, status --drift): Refreshing then, as refresh's reads are (a fleet's preview or up would
// otherwise send more than DigitalOcean allows a minute), else none.
func Reading(refreshing bool) Requests {
	if refreshing {
		return Refreshing
	}
	return nil
}

// Pacer spaces a run's operations (adopt's imports, drift's and refresh's reads) so that the
// requests they are estimated to send each cloud stay under the cloud's limit a minute
// (kinds.Cost): a large account's fleet would otherwise send more than DigitalOcean allows, since
// the providers' imports read the whole account's list of clusters and a run goes several stacks
// at once. The run's one list of each account (package runlist), which the stacks' look-ups by
// name share, is counted once, with the first stack that starts, and again for each stack that
// creates (Runs.Creates). A run whose whole estimate fits in one minute's share is not paced at
// all. A run whose estimate is more than the share of what its account has left of its requests
// an hour (Runs.Allowance) is paced to that as well (Budget.ByHour). Safe for concurrent use.
type Pacer struct {
	mu     sync.Mutex
	costs  map[string]int // by target key
	clouds map[string]*cloudapi.Pacer
	// hours pace a cloud to what its account has left of its requests an hour, where that is less
	// than the run's estimate (Runs.Allowance).
	hours map[string]*cloudapi.Pacer
	// lists are the requests of each cloud's list of the account still to be sent: the first
	// stack of the cloud to start reserves them with its own.
	lists   map[string]int
	budgets []Budget
	// Now and Sleep are the clock the pacer reads and waits on: time.Now and cloudapi.Sleep, or
	// a test's own clock (pkg/deploy's pacing tests set them).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Budget is what one cloud's part of a run is estimated to cost.
type Budget struct {
	// Cloud is the cloud the requests go to; Clusters the clusters of the run it counts as the
	// account's (each cluster's import lists them all in some kinds); Stacks the stacks the
	// estimate counts, those the engine runs.
	Cloud            string
	Clusters, Stacks int
	// Requests is the run's estimate; PerMinute the cloud's limit and Paced what the run keeps to
	// (Share of it), 0 when the whole run fits in one minute's share.
	Requests, PerMinute, Paced int
	// Hour is what the account had left of its requests an hour when the run began, as the
	// cloud's last answer said (nil when it said nothing); ByHour tells that the run is paced to
	// it, its estimate being more than Share of what is left.
	Hour   *cloudapi.Allowance
	ByHour bool
}

// hourShare is what a run paced by the hour sends at once (Share of what the account has left),
// and then a minute from when the hour's oldest request stops counting (Allowance.Reset; nothing
// comes back before it): Share of the hour's limit over 60, since each request stops counting an
// hour after it was sent and so, on average, the hour's limit comes back over an hour.
func (b Budget) hourShare() (now, perMinute int) {
	return int(float64(b.Hour.Remaining) * Share), max(int(float64(b.Hour.Limit)*Share/60), 1)
}

// untilReset is how long after the reading nothing of the hour comes back.
func (b Budget) untilReset() time.Duration {
	if b.Hour.Reset.After(b.Hour.At) {
		return b.Hour.Reset.Sub(b.Hour.At)
	}
	return 0
}

// Minutes is the least the run can take when paced.
func (b Budget) Minutes() float64 {
	least := 0.0
	if b.Paced != 0 {
		least = float64(b.Requests) / float64(b.Paced)
	}
	if b.ByHour {
		now, perMinute := b.hourShare()
		least = max(least, b.untilReset().Minutes()+float64(b.Requests-now)/float64(perMinute))
	}
	return least
}

// minutes says Minutes in words.
func (b Budget) minutes() string {
	m := b.Minutes()
	switch {
	case m < 1:
		return fmt.Sprintf("%.0f seconds", math.Ceil(m*60))
	case fmt.Sprintf("%.0f", m) == "1":
		return "1 minute"
	}
	return fmt.Sprintf("%.0f minutes", m)
}

// String says the budget in a line for the user.
func (b Budget) String() string {
	line := fmt.Sprintf("%s: about %d requests for %d stacks of an account of %d clusters", b.Cloud, b.Requests, b.Stacks, b.Clusters)
	if b.ByHour {
		now, perMinute := b.hourShare()
		line += fmt.Sprintf(", more than the account has left of its %d an hour (%d): %d at once, then %d a minute", b.Hour.Limit, b.Hour.Remaining,
			now, perMinute)
		if wait := b.untilReset(); wait > 0 {
			line += fmt.Sprintf(" from %s, when the hour's oldest stops counting", b.Hour.Reset.UTC().Format("15:04:05 UTC"))
		} else {
			line += " as the hour's oldest stop counting"
		}
		if b.Paced != 0 {
			line += fmt.Sprintf(", and at most %d in any minute (it allows %d)", b.Paced, b.PerMinute)
		}
		return line + ": at least " + b.minutes()
	}
	if b.Paced == 0 {
		return line + fmt.Sprintf(", under its %d a minute: not paced", b.PerMinute)
	}
	return line + fmt.Sprintf(", paced at %d a minute (it allows %d): at least %s", b.Paced, b.PerMinute, b.minutes())
}

// Paces tells whether the run is paced at all: by the minute or by what the account has left.
func (b Budget) Paces() bool { return b.Paced != 0 || b.ByHour }

// Runs is what a pacer knows of the run's stacks beyond their kinds' costs. A nil field takes
// the larger estimate: every stack runs the engine, no account is listed yet, and every stack
// may create.
type Runs struct {
	// Engine tells whether the engine runs t: a stack the fleet scan found unchanged sends the
	// cloud nothing of its own.
	Engine func(t deploytarget.Target) bool
	// Listed tells whether the run holds its list of an account of cloud already (the fleet
	// scan made it), which its stacks' look-ups then share.
	Listed func(cloud string) bool
	// Creates tells whether t's operation creates what it deploys: the run forgets its lists
	// after a create (package runlist), so the next look-up lists the account again.
	Creates func(t deploytarget.Target) bool
	// Allowance is what cloud's account had left of its requests an hour, as the run heard it
	// before its stacks start (Heard); ok is false when no answer said.
	Allowance func(cloud string) (a cloudapi.Allowance, ok bool)
}

// NewPacer estimates the targets' operation (op) per cloud, counting the clusters among them as
// the account's (discover writes one manifest per cluster, so a folder it wrote holds them all;
// a run on part of an account underestimates what reads the whole list). Only the stacks the
// engine runs are estimated: a stack the fleet scan found unchanged sends the cloud nothing of
// its own, and a drift of 1,000 stacks of which it leaves 3 takes seconds. The run's list of an
// account is counted once when a stack's operation looks up by name and the run does not hold
// the list yet, and once more for each stack that creates.
func NewPacer(targets []deploytarget.Target, op Requests, runs Runs) *Pacer {
	p := &Pacer{costs: map[string]int{}, clouds: map[string]*cloudapi.Pacer{}, hours: map[string]*cloudapi.Pacer{}, lists: map[string]int{},
		Now: time.Now, Sleep: cloudapi.Sleep}
	clusters, perMinute := map[string]int{}, map[string]int{}
	for _, t := range targets {
		if t.Cost == nil {
			continue
		}
		perMinute[t.Cost.Cloud] = t.Cost.PerMinute
		if t.Effects != nil && t.Effects.Types[effects.Cluster] != "" {
			clusters[t.Cost.Cloud]++
		}
	}
	total, largest, stacks := map[string]int{}, map[string]int{}, map[string]int{}
	for _, t := range targets {
		if t.Cost == nil || op(t.Cost).Own == nil || (runs.Engine != nil && !runs.Engine(t)) {
			continue
		}
		c, estimate := t.Cost.Cloud, op(t.Cost)
		cost := estimate.Own(clusters[c])
		if estimate.Lists && t.Cost.List != nil {
			list := t.Cost.List(clusters[c])
			if runs.Listed == nil || !runs.Listed(c) {
				p.lists[c] = list
			}
			if runs.Creates == nil || runs.Creates(t) {
				// After its create the run lists again, for whichever stack looks up next.
				cost += list
			}
		}
		p.costs[t.Key()] = cost
		total[c] += cost
		largest[c] = max(largest[c], cost)
		stacks[c]++
	}
	for c, n := range total {
		n += p.lists[c]
		b := Budget{Cloud: c, Clusters: clusters[c], Stacks: stacks[c], Requests: n, PerMinute: perMinute[c]}
		if paced := int(float64(perMinute[c]) * Share); n > paced {
			b.Paced = paced
			// One operation's worth at once (the first one's with the run's list), then the
			// share's rate: in any minute the starts ask at most the share and one operation.
			p.clouds[c] = cloudapi.NewPacer(paced, largest[c]+p.lists[c])
		}
		if runs.Allowance != nil {
			if a, ok := runs.Allowance(c); ok {
				b.Hour = &a
				if now, perMinute := b.hourShare(); n > now {
					// More than is left of the hour: what is left at once, then what comes back,
					// from when the hour's oldest request stops counting.
					b.ByHour = true
					p.hours[c] = cloudapi.NewPacerFrom(perMinute, max(now, 1), float64(now), a.Reset)
				}
			}
		}
		p.budgets = append(p.budgets, b)
	}
	sort.Slice(p.budgets, func(i, j int) bool { return p.budgets[i].Cloud < p.budgets[j].Cloud })
	return p
}

// Budgets are the run's estimates, a cloud each, by name.
func (p *Pacer) Budgets() []Budget { return p.budgets }

// Wait holds t's operation until its estimated requests fit its cloud's pace; it returns at once
// for a nil pacer, a target of no cost or an unpaced cloud, and ctx's error when ctx ends first.
func (p *Pacer) Wait(ctx context.Context, t deploytarget.Target) error {
	if p == nil || t.Cost == nil {
		return nil
	}
	p.mu.Lock()
	var d time.Duration
	cost, now := float64(p.costs[t.Key()]+p.lists[t.Cost.Cloud]), p.Now()
	for _, b := range []*cloudapi.Pacer{p.clouds[t.Cost.Cloud], p.hours[t.Cost.Cloud]} {
		if b != nil {
			d = max(d, b.ReserveAt(now, cost))
		}
	}
	delete(p.lists, t.Cost.Cloud)
	p.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return errors.Wrapf(p.Sleep(ctx, d), "wait %v for %s's rate limit", d.Round(time.Second), t.Cost.Cloud)
}
