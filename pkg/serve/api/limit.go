package api

import (
	"crypto/sha256"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// callerLimits holds one token bucket per caller: a caller that sends more than its rate (after
// a burst) is answered 429 until its bucket refills. Each replica counts for itself. A nil
// *callerLimits limits nobody.
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
	if l == nil {
		return 0
	}
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
	if l == nil {
		return false
	}
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

// DefaultRateLimit and DefaultRateBurst are `clusterplane serve`'s --rate-limit and
// --rate-burst. The burst lets a portal's page load through: it sends some 200 requests at once
// with one token, and two such loads in a row are still served before the rate applies.
const (
	DefaultRateLimit = 100
	DefaultRateBurst = 400
)

// limited answers 429 when caller has sent more than its rate; it tells whether it did.
func (s *Server) limited(w http.ResponseWriter, r *http.Request, caller string) bool {
	if s.limits == nil {
		return false
	}
	d := s.limits.wait(caller, time.Now())
	if d == 0 {
		return false
	}
	s.tooMany(w, r, caller, d)
	return true
}

// authenticate finds the request's principal and applies the rate limits; refused tells that it
// answered 429. A verified API token is believed for a few seconds without its record being read
// again (credentials). Failed authentications are counted against the request's address, in a
// bucket of their own: once an address has spent it, its failing requests are answered 429, and
// a credential that already failed is refused before anything is looked up, so that a broken
// client resending a bad token costs the database nothing. A valid token from the same address
// (behind one proxy, everyone's) is still served: it is counted against its own subject only.
// A credential not seen before from a spent address is looked up at most --rate-limit times a
// second, so that a flood of ever new guesses costs the database a bounded number of reads.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (p auth.Principal, refused bool, err error) {
	now := time.Now()
	values := r.Header.Values("Authorization")
	var key credentialKey
	if len(values) > 0 {
		key = sha256.Sum256([]byte(strings.Join(values, "\n")))
		if p, ok := s.creds.verified(key, now); ok {
			return p, s.limited(w, r, p.Subject), nil
		}
	}
	addr := address(r)
	knownBad := len(values) > 0 && s.creds.knownBad(key, now)
	if len(values) > 0 && s.failures.spent(addr, now) && (knownBad || s.lookups.wait(addr, now) > 0) {
		s.tooMany(w, r, addr, max(time.Second, s.failures.delay(addr, now)))
		return auth.Principal{}, true, nil
	}
	if knownBad {
		err = auth.ErrUnauthenticated
	} else {
		p, err = s.Auth.Authenticate(r)
	}
	if errors.Is(err, auth.ErrUnauthenticated) {
		if len(values) > 0 {
			s.creds.failed(key, now)
		}
		if d := s.failures.wait(addr, now); d > 0 {
			s.tooMany(w, r, addr, d)
			return auth.Principal{}, true, nil
		}
		return p, false, err
	}
	if err != nil {
		return p, false, err // the server's own failure (500): nothing to remember or count
	}
	if len(values) > 0 {
		s.creds.remember(key, p, now)
	}
	caller := p.Subject
	if caller == "" {
		caller = addr
	}
	return p, s.limited(w, r, caller), nil
}

// delay is how long caller waits for its next token.
func (l *callerLimits) delay(caller string, now time.Time) time.Duration {
	if l == nil {
		return 0
	}
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

func (s *Server) tooMany(w http.ResponseWriter, r *http.Request, caller string, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	s.fail(w, r, &Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED",
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
