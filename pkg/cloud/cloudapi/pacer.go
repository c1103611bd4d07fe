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
}

// NewPacer lets burst requests go at once and then perMinute a minute (both at least 1).
func NewPacer(perMinute, burst int) *Pacer {
	perMinute = max(perMinute, 1)
	burst = max(burst, 1)
	return &Pacer{interval: time.Minute / time.Duration(perMinute), burst: float64(burst), tokens: float64(burst), now: time.Now}
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
		p.tokens = min(p.burst, p.tokens+float64(now.Sub(p.last))/float64(p.interval))
	}
	p.last = now
	p.tokens -= cost
	if p.tokens >= 0 {
		return 0
	}
	return time.Duration(-p.tokens * float64(p.interval))
}

// String says the pace in words, for a command's help.
func (p *Pacer) String() string { return fmt.Sprintf("%v between requests", p.interval) }
