package upgraderun

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// MostReadsAMinute bounds the reads of clusters' health (Health) a rollout sends a cloud, all its
// clusters' waits together: half of the 250 requests a minute DigitalOcean allows a token, the
// other half left to the deploys and anything else the token runs.
const MostReadsAMinute = 125

const (
	// nearEnd is the time between a wait's reads around its step's expected end (--poll when
	// shorter): a step is found ended within about that much of its end.
	nearEnd = 200 * time.Millisecond
	// nearEndReads is how many reads a wait makes around the expected end before it goes back to
	// reading every --poll: a step that takes longer than the ones before costs a few reads more,
	// not a read every nearEnd.
	nearEndReads = 5
	// farRead is how often, at most, a wait reads before its step's expected end: often enough to
	// see a cluster the cloud failed early, seldom enough that a long upgrade costs few reads.
	farRead = time.Minute
	// learned is how many of the latest steps the expected end is taken from.
	learned = 5
	// readsAtOnce is how many reads may go at once (the pace's burst), so that a few clusters'
	// first reads need not queue; the pace's rate is lowered by as much, so that no minute sees
	// more than the bound.
	readsAtOnce = 5
)

// reads paces a rollout's reads of its clusters' health: each read waits its turn in one pace for
// the whole rollout (MostReadsAMinute), and a wait after a step reads when the step is expected
// to end, from how long the rollout's latest steps took, rather than every --poll all along. The
// steps of one rollout take about as long as each other (the same cloud, the same kind of
// change), so most steps are found ended at the first or second read near their end.
type reads struct {
	pace *cloudapi.Pacer
	mu   sync.Mutex
	// took are the latest steps' waits, each from its start to the read that found the step ended.
	took []time.Duration
}

// newReads paces a rollout's reads to at most perMinute in any minute (MostReadsAMinute when 0):
// up to readsAtOnce (parallel, when fewer) at once, then the rest of perMinute a minute.
func newReads(perMinute, parallel int) *reads {
	if perMinute <= 0 {
		perMinute = MostReadsAMinute
	}
	burst := min(max(parallel, 1), readsAtOnce, perMinute)
	return &reads{pace: cloudapi.NewPacer(perMinute-burst, burst)}
}

// turn waits until a read may go in the rollout's pace.
func (rd *reads) turn(ctx context.Context) error {
	d := rd.pace.ReserveAt(time.Now(), 1)
	if d <= 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// learn records that a step's wait ended took after it began.
func (rd *reads) learn(took time.Duration) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.took = append(rd.took, took)
	if len(rd.took) > learned {
		rd.took = rd.took[len(rd.took)-learned:]
	}
}

// expected is how long a step's wait is expected to take: the middle of the latest steps' (a
// step that was slow for a reason of its own moves it little); ok is false before any step ended.
func (rd *reads) expected() (time.Duration, bool) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if len(rd.took) == 0 {
		return 0, false
	}
	sorted := slices.Sorted(slices.Values(rd.took))
	return sorted[len(sorted)/2], true
}

// after is how long a wait that began elapsed ago, and has read reads times, waits before its
// next read. A wait with nothing to expect (the rollout's first steps, or an upgrade an earlier
// run sent, whose start is unknown: timed false) reads at once and then every poll. Otherwise it
// reads at most every farRead until shortly before the expected end, then every nearEnd for
// nearEndReads reads, then every poll.
func (rd *reads) after(elapsed time.Duration, reads int, poll time.Duration, timed bool) time.Duration {
	expect, ok := rd.expected()
	if !timed || !ok {
		if reads == 0 {
			return 0
		}
		return poll
	}
	near := min(nearEnd, poll)
	from, until := expect-near, expect+(nearEndReads-1)*near
	switch {
	case elapsed < from:
		return min(max(poll, farRead), from-elapsed)
	case elapsed < until:
		return near
	default:
		return poll
	}
}
