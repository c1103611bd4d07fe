package discover

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/pkg/errors"
)

// DigitalOcean allows 250 requests a minute per token (and 5,000 an hour); the pacer stays under
// it with room for whatever else runs with the same token: in any minute at most the burst and
// a minute's refill, 245.
const (
	DefaultPerMinute = 225
	// DefaultBurst requests go out at once before pacing starts: a small account is read at
	// full speed, a large one never exceeds the per-minute limit.
	DefaultBurst = 20
	// maxRetryAfter bounds how long one 429 makes us wait, whatever the server says.
	maxRetryAfter = 2 * time.Minute
	maxAttempts   = 5
	maxBody       = 64 << 20
)

// client reads one cloud's API: GET only, paced, answering 429 by waiting as Retry-After says.
// Its errors name the path and status, never the token or the base URL (which may hold
// credentials of its own).
type client struct {
	base   string
	auth   string
	http   *http.Client
	pace   *pacer
	mu     sync.Mutex
	counts int
	// sleep waits (replaced in tests); it returns early when ctx ends.
	sleep func(ctx context.Context, d time.Duration) error
}

func newClient(base, auth string, hc *http.Client, p *pacer) *client {
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return &client{base: base, auth: auth, http: hc, pace: p, sleep: sleepCtx}
}

// requests is how many requests went to the cloud, retries included.
func (c *client) requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}

// get reads path (with its query) into out, retrying 429s and 5xx answers a few times.
func (c *client) get(ctx context.Context, path string, out any) error {
	var last error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if err := c.pace.wait(ctx, c.sleep); err != nil {
			return err
		}
		wait, err := c.once(ctx, path, out)
		if err == nil {
			return nil
		}
		last = err
		if wait < 0 {
			return err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
	return errors.Wrapf(last, "GET %s: gave up after %d attempts", pathOnly(path), maxAttempts)
}

// once makes one request. A negative wait means the error is final; otherwise it is how long to
// wait before trying again.
func (c *client) once(ctx context.Context, path string, out any) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return -1, errors.Errorf("GET %s: bad request URL", pathOnly(path))
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	c.mu.Lock()
	c.counts++
	c.mu.Unlock()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, ctx.Err()
		}
		// The transport's error names the URL; say only the path.
		return time.Second, errors.Errorf("GET %s: the API did not answer", pathOnly(path))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return time.Second, errors.Errorf("GET %s: reading the answer failed", pathOnly(path))
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return retryAfter(resp.Header.Get("Retry-After")), errors.Errorf("GET %s: HTTP 429 too many requests", pathOnly(path))
	case resp.StatusCode >= 500:
		return time.Second, errors.Errorf("GET %s: HTTP %d", pathOnly(path), resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return -1, errors.Errorf("GET %s: HTTP %d%s", pathOnly(path), resp.StatusCode, apiMessage(body))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return -1, errors.Wrapf(err, "GET %s: read the answer", pathOnly(path))
	}
	return 0, nil
}

// apiMessage is the message of an error body, short, for the user: both clouds answer
// {"message": ...} or {"reason": ...}; neither echoes the token.
func apiMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Code    string `json:"code"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	msg := e.Message
	if msg == "" {
		msg = e.Reason
	}
	if msg == "" {
		msg = e.Code
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// retryAfter reads Retry-After (seconds or an HTTP date); without one, a second.
func retryAfter(h string) time.Duration {
	if h == "" {
		return time.Second
	}
	if secs, err := strconv.Atoi(h); err == nil && secs >= 0 {
		return min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(h); err == nil {
		return min(max(time.Until(t), 0), maxRetryAfter)
	}
	return time.Second
}

// pathOnly is a request's path without its query, for messages.
func pathOnly(path string) string {
	for i, r := range path {
		if r == '?' {
			return path[:i]
		}
	}
	return path
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// pacer is a token bucket: burst requests at once, then one every minute/perMinute.
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	burst    float64
	tokens   float64
	last     time.Time
	now      func() time.Time
}

func newPacer(perMinute, burst int) *pacer {
	if perMinute <= 0 {
		perMinute = DefaultPerMinute
	}
	if burst <= 0 {
		burst = 1
	}
	return &pacer{interval: time.Minute / time.Duration(perMinute), burst: float64(burst), tokens: float64(burst), now: time.Now}
}

func (p *pacer) wait(ctx context.Context, sleep func(context.Context, time.Duration) error) error {
	p.mu.Lock()
	now := p.now()
	if !p.last.IsZero() {
		p.tokens = min(p.burst, p.tokens+float64(now.Sub(p.last))/float64(p.interval))
	}
	p.last = now
	p.tokens--
	var d time.Duration
	if p.tokens < 0 {
		d = time.Duration(-p.tokens * float64(p.interval))
	}
	p.mu.Unlock()
	return sleep(ctx, d)
}

// String says the pace in words, for the command's help.
func (p *pacer) String() string { return fmt.Sprintf("%v between requests", p.interval) }
