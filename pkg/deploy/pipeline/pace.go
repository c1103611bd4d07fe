package pipeline

import (
	"context"
	"fmt"

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
// heard what the clouds said of their accounts' requests an hour. A cloud paced by the minute
// whose answers said nothing yet is asked once (cloud.Driver's Allowance).
func (r Request) pacer(ctx context.Context, sorted []deploytarget.Target, scanned map[string]deploy.Scanned, kept map[string]bool, refused map[string]error,
	lists *runlist.Lists, heard *queue.Heard) *queue.Pacer {
	if r.Pace == nil {
		return nil
	}
	p := r.newPacer(sorted, scanned, kept, refused, lists, heard)
	asked := false
	for _, b := range p.Budgets() {
		if b.Paced == 0 || b.Hour != nil {
			continue
		}
		if a, ok := askAllowance(ctx, sorted, b.Cloud); ok {
			heard.Hear(b.Cloud, a)
			asked = true
		}
	}
	if asked {
		p = r.newPacer(sorted, scanned, kept, refused, lists, heard)
	}
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

// askAllowance asks cloud's API, with the first of sorted's tokens for it, what the account has
// left of its requests an hour; ok is false when the cloud does not say or the question failed
// (the run is then paced by the minute alone, as without it).
func askAllowance(ctx context.Context, sorted []deploytarget.Target, cloud string) (cloudapi.Allowance, bool) {
	for _, t := range sorted {
		if t.Input == nil {
			continue
		}
		c, base, token := stackinput.CloudAPI(t.Input)
		if c != cloud || token == "" {
			continue
		}
		d, ok := clouds.OfInput(t.Input)
		if !ok {
			break
		}
		a, ok, err := d.Allowance(ctx, base, token)
		return a, ok && err == nil
	}
	return cloudapi.Allowance{}, false
}

// sayHourLeft says, for each cloud whose account's requests an hour were heard when the run
// began and that the run paced, what the account had left then and has now (one request to ask),
// so that a job that shares the token sees what the run left it.
func (r Request) sayHourLeft(ctx context.Context, sorted []deploytarget.Target, budgets []queue.Budget) {
	for _, b := range budgets {
		if b.Hour == nil || !b.Paces() || ctx.Err() != nil {
			continue
		}
		if a, ok := askAllowance(ctx, sorted, b.Cloud); ok {
			r.say(fmt.Sprintf("%s: the account had %d of its %d requests an hour left when the run's stacks began, and has %d now "+
				"(every request with its token counts, this run's and any other's, until an hour after it was sent)",
				b.Cloud, b.Hour.Remaining, b.Hour.Limit, a.Remaining))
		}
	}
}

// newPacer is the run's pacer from what is known now.
func (r Request) newPacer(sorted []deploytarget.Target, scanned map[string]deploy.Scanned, kept map[string]bool, refused map[string]error,
	lists *runlist.Lists, heard *queue.Heard) *queue.Pacer {
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
		Allowance: heard.Latest,
	})
}
