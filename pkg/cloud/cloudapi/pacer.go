package cloudapi

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Pacer is a token bucket: burst requests at once, then one every minute/perMinute. Clients given
// the same pacer share its pace, as requests with one token share the cloud's rate limit.
type Pacer struct {
	mu       sync.Mutex
	interval time.Duration
	burst    float64
	tokens   float64
	last     time.Time
	now      func() time.Time
	// from is when the bucket begins to fill again (NewPacerFrom); zero for at once.
	from time.Time
}

// NewPacer lets burst requests go at once and then perMinute a minute (both at least 1).
func NewPacer(perMinute, burst int) *Pacer {
	perMinute = max(perMinute, 1)
	burst = max(burst, 1)
	return &Pacer{interval: time.Minute / time.Duration(perMinute), burst: float64(burst), tokens: float64(burst), now: time.Now}
}

// NewPacerFrom lets tokens requests go at once (none when below 1) and, from from on, perMinute
// a minute, at most burst at a time: an account that has tokens left of its hour, whose oldest
// request stops counting at from.
func NewPacerFrom(perMinute, burst int, tokens float64, from time.Time) *Pacer {
	p := NewPacer(perMinute, burst)
	p.tokens, p.from = max(tokens, 0), from
	return p
}

func (p *Pacer) wait(ctx context.Context, sleep func(context.Context, time.Duration) error) error {
	p.mu.Lock()
	d := p.reserve(p.now(), 1)
	p.mu.Unlock()
	return sleep(ctx, d)
}

// ReserveAt takes cost requests' worth from the bucket at now and says how long the caller waits
// before they may go. The balance may go below zero, so reservations are served in the order made:
// a caller whose work costs many requests (an import) reserves them all at once.
func (p *Pacer) ReserveAt(now time.Time, cost float64) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserve(now, cost)
}

func (p *Pacer) reserve(now time.Time, cost float64) time.Duration {
	if !p.last.IsZero() {
		// Only the time since the bucket began to fill again fills it.
		since := p.last
		if p.from.After(since) {
			since = p.from
		}
		if now.After(since) {
			p.tokens = min(p.burst, p.tokens+float64(now.Sub(since))/float64(p.interval))
		}
	}
	p.last = now
	p.tokens -= cost
	if p.tokens >= 0 {
		return 0
	}
	wait := time.Duration(-p.tokens * float64(p.interval))
	if p.from.After(now) {
		wait += p.from.Sub(now)
	}
	return wait
}

// String says the pace in words, for a command's help.
func (p *Pacer) String() string { return fmt.Sprintf("%v between requests", p.interval) }
