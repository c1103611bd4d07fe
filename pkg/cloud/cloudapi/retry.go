package cloudapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// Retry says whether a request's attempt (counted from 0) that got status (0 when no answer came)
// with header is asked again, and after how long. Each caller keeps the rule its API and its
// users need; the ones below are those rules.
type Retry func(ctx context.Context, attempt, status int, header http.Header) (wait time.Duration, again bool)

// asked is the status the rule is given for an attempt of method that got status: a read that got
// no answer (its connection reset, its answer broken off) is given as a 502 is, since asking it
// again changes nothing in the cloud; a write that got none stays 0, which the rules below never
// ask again: the cloud may have carried it out.
func asked(method string, status int) int {
	if status == 0 && (method == http.MethodGet || method == http.MethodHead) {
		return http.StatusBadGateway
	}
	return status
}

// mayBeDone says a request of method that got status may have been carried out, so that no rule
// may ask it again: a POST (a create) answered 5xx or not at all. The cloud can make the thing and
// still answer 5xx, or the answer can be lost; sent again, the create makes a second thing, billed
// until someone finds it. A caller that must have the thing looks for it first (CreateOnce). A 429
// was turned away unread, so a rule may ask it again.
func mayBeDone(method string, status int) bool {
	return method == http.MethodPost && (status == 0 || status >= 500)
}

// Never asks nothing again: for a request whose caller decides (a tag that must not be sent twice
// unseen).
func Never(context.Context, int, int, http.Header) (time.Duration, bool) { return 0, false }

// retryable is a status worth asking again: no answer, the rate limit, a server error.
func retryable(status int) bool {
	return status == 0 || status == http.StatusTooManyRequests || status >= 500
}

// Backoff asks a 429 or a 5xx again up to times more, waiting first and twice as long each time;
// a write that got no answer is not asked again (a read that got none comes as a 502: asked).
func Backoff(times int, first time.Duration) Retry {
	return func(_ context.Context, attempt, status int, _ http.Header) (time.Duration, bool) {
		if status == 0 || !retryable(status) || attempt >= times {
			return 0, false
		}
		return first << attempt, true
	}
}

// Patient asks again up to times more: a 429 after the Retry-After it names (at most maxWait, a
// second when it names none), a 5xx or no answer after a second. It suits a long read that must
// get through a busy account (discover).
func Patient(times int, maxWait time.Duration) Retry {
	return func(_ context.Context, attempt, status int, header http.Header) (time.Duration, bool) {
		if !retryable(status) || attempt >= times {
			return 0, false
		}
		if status == http.StatusTooManyRequests {
			return RetryAfter(header.Get("Retry-After"), maxWait, time.Now()), true
		}
		return time.Second, true
	}
}

// RetryAfter reads a Retry-After header (seconds or an HTTP date) as of now, at most maxWait;
// without one, or one not understood, a second.
func RetryAfter(h string, maxWait time.Duration, now time.Time) time.Duration {
	if wait, ok := parseRetryAfter(h, now); ok {
		return min(wait, maxWait)
	}
	return time.Second
}

func parseRetryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(h); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Bounded asks a 429 or a 5xx again up to times more, after the Retry-After the API names or else
// a backoff from first doubling each time; it gives up, leaving the caller the refusal, when the
// wait would be over maxWait or outlast ctx. It suits a look-up that must not hold a preview up.
func Bounded(times int, first, maxWait time.Duration) Retry {
	return func(ctx context.Context, attempt, status int, header http.Header) (time.Duration, bool) {
		return bounded(ctx, attempt, status, header, times, first, maxWait, time.Now())
	}
}

func bounded(ctx context.Context, attempt, status int, header http.Header, times int, first, maxWait time.Duration, now time.Time) (time.Duration, bool) {
	if status == 0 || !retryable(status) || attempt >= times {
		return 0, false
	}
	wait := first << attempt
	if after, ok := parseRetryAfter(header.Get("Retry-After"), now); ok {
		wait = after
	}
	if wait > maxWait {
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		return 0, false
	}
	return wait, true
}

// Throttled asks the API whether it takes requests now, with one GET of path (one it answers
// cheaply): a 429 answers how long it wants the client to wait, its Retry-After (a second when it
// names none); any other answer, or none, is 0. It is what clusterplane asks before running again
// an operation a provider plugin gave up on with a 429, since the plugin's error does not carry
// the Retry-After.
func (c *Client) Throttled(ctx context.Context, path string) time.Duration {
	status, header, _, err := c.once(ctx, http.MethodGet, path, nil, false)
	if err != nil || status != http.StatusTooManyRequests {
		return 0
	}
	return RetryAfter(header.Get("Retry-After"), time.Hour, time.Now())
}

// HourLeft asks the API what the token's account has left of its requests an hour, with one GET
// of path (its Probe, as Throttled asks), never asked again: the answer's headers say it
// (Allowance), a 429's too. ok is false when the answer said nothing; err when none came or it
// failed otherwise.
func (c *Client) HourLeft(ctx context.Context, path string) (a Allowance, ok bool, err error) {
	status, header, _, err := c.once(ctx, http.MethodGet, path, nil, false)
	if err != nil {
		return a, false, err
	}
	if status/100 != 2 && status != http.StatusTooManyRequests {
		return a, false, &Error{Method: http.MethodGet, Path: pathOnly(path), Status: status}
	}
	if read := allowanceOf(header, time.Now()); read != nil {
		return *read, true, nil
	}
	return a, false, nil
}

// Throttled is Client.Throttled of the cloud c's API at base (its own API when "") with token,
// asked at its Probe: what a caller holding only a provider config's token and URL asks before
// running an operation again.
func Throttled(ctx context.Context, c cloudfacts.Env, base, token string) time.Duration {
	if base == "" {
		base = c.API
	}
	return New(base, Bearer(token), Options{}).Throttled(ctx, c.Probe)
}
