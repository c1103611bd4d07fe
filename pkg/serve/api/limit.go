package api

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// callerLimits holds one token bucket per caller: a caller that sends more than its rate (after
// a burst) is answered 429 until its bucket refills. Each replica counts for itself.
type callerLimits struct {
	every rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	limiter *rate.Limiter
	seen    time.Time
}

// maxCallers bounds how many buckets are kept: a flood of callers (or of garbled tokens from
// many addresses) must not grow the map without end. Past it, buckets idle for a minute go; if
// that is not enough, all do (the limits start afresh rather than memory running out).
const maxCallers = 10_000

func newCallerLimits(perSecond float64, burst int) *callerLimits {
	return &callerLimits{every: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// wait says how long caller must wait before its next request is served: 0 when it may go now
// (the request is then counted).
func (l *callerLimits) wait(caller string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[caller]
	if !ok {
		if len(l.buckets) >= maxCallers {
			l.sweep(now)
		}
		b = &bucket{limiter: rate.NewLimiter(l.every, l.burst)}
		l.buckets[caller] = b
	}
	b.seen = now
	r := b.limiter.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // not served: the request takes no token
		return d
	}
	return 0
}

// spent tells that caller's bucket is empty at now, without counting a request: the check made
// before a request's token is looked up.
func (l *callerLimits) spent(caller string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[caller]
	return ok && b.limiter.TokensAt(now) < 1
}

func (l *callerLimits) sweep(now time.Time) {
	for k, b := range l.buckets {
		if now.Sub(b.seen) > time.Minute {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxCallers {
		clear(l.buckets)
	}
}

// limited answers 429 when caller has sent more than its rate; it tells whether it did.
func (s *Server) limited(w http.ResponseWriter, caller string) bool {
	if s.limits == nil {
		return false
	}
	d := s.limits.wait(caller, time.Now())
	if d == 0 {
		return false
	}
	s.tooMany(w, caller, d)
	return true
}

// guessing answers 429, before any token is looked up, a request from an address that has
// spent its rate on requests without a valid credential: a flood of guessed tokens must not cost
// a database read each. A valid token sent from that address waits too, as long as the
// address's bucket takes to refill.
func (s *Server) guessing(w http.ResponseWriter, r *http.Request) bool {
	if s.limits == nil {
		return false
	}
	addr := address(r)
	now := time.Now()
	if !s.limits.spent(addr, now) {
		return false
	}
	s.tooMany(w, addr, max(time.Second, s.limits.delay(addr, now)))
	return true
}

// delay is how long caller waits for its next token.
func (l *callerLimits) delay(caller string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[caller]
	if !ok {
		return 0
	}
	r := b.limiter.ReserveN(now, 1)
	defer r.CancelAt(now)
	return r.DelayFrom(now)
}

func (s *Server) tooMany(w http.ResponseWriter, caller string, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	s.fail(w, &Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED",
		Message: "more than " + strconv.FormatFloat(float64(s.limits.every), 'f', -1, 64) + " requests a second from " + caller + ": retry after Retry-After seconds"})
}

// address is the request's remote address without its port: the caller of a request that
// carries no valid credential.
func address(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
