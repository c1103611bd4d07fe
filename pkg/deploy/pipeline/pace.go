package pipeline

import (
	"context"
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// pacer paces the run's operations when the request asks (Pace), and says the estimate of each
// cloud it paces. It is made after the fleet scan and the guard, and estimates only the stacks
// left to the engine: not those the scan found unchanged, --changed-since left out or the guard
// refused, which send the cloud nothing of their own. lists are the run's (package runlist);
// heard what the clouds said of their accounts' requests an hour until now, which it stops.
func (r Request) pacer(ctx context.Context, sorted []deploytarget.Target, scanned map[string]deploy.Scanned, kept map[string]bool, refused map[string]error,
	lists *runlist.Lists, heard *queue.Heard) *queue.Pacer {
	if r.Pace == nil {
		return nil
	}
	accounts := accountsOf(sorted)
	p := r.newPacer(sorted, scanned, kept, refused, lists, heard, accounts)
	if askHours(ctx, p.Budgets(), accounts, heard) {
		p = r.newPacer(sorted, scanned, kept, refused, lists, heard, accounts)
	}
	heard.Stop()
	for _, b := range p.Budgets() {
		switch {
		case b.ByHour:
			r.say(string(r.Op.Operation()) + " paces its requests to what the account has left: " + b.String())
		case b.Paced > 0:
			r.say(string(r.Op.Operation()) + " paces its requests to stay under the cloud's rate limit: " + b.String())
		}
	}
	return p
}

// account is the one account a run's stacks use on a cloud: the API, the token and the driver
// that asks what the account has left of its hour.
type account struct {
	base, token, key string
	driver           cloud.Driver
}

// accountsOf are the accounts of sorted's stacks, a cloud each; nil for a cloud whose stacks use
// more than one token: the pacer paces each cloud as one, and one account's hour says nothing of
// another's, so such a cloud is paced by the minute alone.
func accountsOf(sorted []deploytarget.Target) map[string]*account {
	out := map[string]*account{}
	for _, t := range sorted {
		if t.Input == nil {
			continue
		}
		c, base, token := stackinput.CloudAPI(t.Input)
		if token == "" {
			continue
		}
		d, ok := clouds.OfInput(t.Input)
		if !ok {
			continue
		}
		a, seen := out[c]
		switch {
		case !seen:
			out[c] = &account{base: base, token: token, key: cloudapi.AccountOf(token), driver: d}
		case a != nil && (a.token != token || a.base != base):
			out[c] = nil
		}
	}
	return out
}

// askHours asks, for each cloud paced by the minute whose account's answers said nothing yet of
// its hour, what the account has left (one request), and keeps it in heard; true when any said.
func askHours(ctx context.Context, budgets []queue.Budget, accounts map[string]*account, heard *queue.Heard) bool {
	asked := false
	for _, b := range budgets {
		a := accounts[b.Cloud]
		if b.Paced == 0 || b.Hour != nil || a == nil || heard == nil {
			continue
		}
		if hour, ok, err := a.driver.Allowance(ctx, a.base, a.token); ok && err == nil {
			heard.Hear(b.Cloud, a.key, hour)
			asked = true
		}
	}
	return asked
}

// sayHourLeft says, for each cloud the run paced to what its account had left of its hour, what
// the account had left then and has now (one request to ask), so that a job sharing the token
// sees what the run left it.
func (r Request) sayHourLeft(ctx context.Context, accounts map[string]*account, budgets []queue.Budget) {
	for _, b := range budgets {
		a := accounts[b.Cloud]
		if !b.ByHour || a == nil || ctx.Err() != nil {
			continue
		}
		if hour, ok, _ := a.driver.Allowance(ctx, a.base, a.token); ok {
			r.say(fmt.Sprintf("%s: the account had %d of its %d requests an hour left when the run's stacks began, and has %d now "+
				"(every request with its token counts, this run's and any other's, until an hour after it was sent)",
				b.Cloud, b.Hour.Remaining, b.Hour.Limit, hour.Remaining))
		}
	}
}

// newPacer is the run's pacer from what is known now.
func (r Request) newPacer(sorted []deploytarget.Target, scanned map[string]deploy.Scanned, kept map[string]bool, refused map[string]error,
	lists *runlist.Lists, heard *queue.Heard, accounts map[string]*account) *queue.Pacer {
	return queue.NewPacer(sorted, r.Pace, queue.Runs{
		Engine: func(t deploytarget.Target) bool {
			return !scanned[t.Key()].Unchanged && (kept == nil || kept[t.Key()]) && refused[t.Key()] == nil
		},
		// The fleet scan's lists are the run's (package runlist): an account it listed costs
		// the stacks' look-ups nothing more.
		Listed: func(cloud string) bool { return lists != nil && lists.Holds(cloud) },
		// Only an up creates: a stack the scan found holding nothing, or any stack when no
		// scan ran.
		Creates: func(t deploytarget.Target) bool {
			return r.Op.Operation() == operation.Up && (scanned == nil || scanned[t.Key()].HoldsNothing)
		},
		Allowance: func(cloud string) (cloudapi.Allowance, bool) {
			if a := accounts[cloud]; a != nil {
				return heard.Latest(cloud, a.key)
			}
			return cloudapi.Allowance{}, false
		},
	})
}
