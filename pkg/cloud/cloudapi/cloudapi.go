// Package cloudapi is an authenticated JSON REST client of one cloud's API (DigitalOcean's,
// Civo's): a base URL, an Authorization header, an *http.Client with a timeout, an optional pacer
// and a retry rule chosen by the caller.
//
// Its errors name the method, the path (without its query) and the status, and quote at most a
// short message of the answer's body; never the token, never the base URL (which may carry
// credentials of its own) and never the transport's error (which quotes the URL).
package cloudapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"
)

// UserAgent names clusterplane's own requests to a cloud, apart from its Pulumi providers'.
const UserAgent = "clusterplane"

// DefaultTimeout bounds one request when the caller names no timeout.
const DefaultTimeout = 60 * time.Second

const (
	// maxBody bounds what is read of an answer: a discover's list of a large account fits.
	maxBody = 64 << 20
	// maxMessage bounds the part of an error body quoted in an error.
	maxMessage = 200
)

// Options are a client's optional parts.
type Options struct {
	// HTTP sends the requests; nil is a client with Timeout.
	HTTP *http.Client
	// Timeout bounds one request of the client made when HTTP is nil; 0 is DefaultTimeout.
	Timeout time.Duration
	// Retry says which refused requests are asked again; nil asks every request once.
	Retry Retry
	// Pace spaces requests out (shared by every client given the same pacer); nil sends at once.
	Pace *Pacer
	// Cloud names the cloud for observers (Observe): "digitalocean", "civo".
	Cloud string
}

// Asking is how an upgrade plan and a catalogue ask a cloud, a person waiting on the answer: 30
// seconds a request, and a 429 or a 5xx asked again, a few times, as the clouds ask clients to
// (the token appears in no error, as in every request of a Client).
func Asking() Options {
	return Options{Timeout: 30 * time.Second, Retry: Backoff(3, 500*time.Millisecond)}
}

// Client is one cloud's API with one token. It is safe for concurrent use.
type Client struct {
	base   string
	auth   string
	secret string
	http   *http.Client
	retry  Retry
	pace   *Pacer
	// sleep waits (replaced in tests); it returns early when ctx ends.
	sleep    func(ctx context.Context, d time.Duration) error
	requests atomic.Int64
	cloud    string
	// account names the token's account for observers (AccountOf).
	account string
}

// New is the API at base (a trailing slash is dropped) sending auth as the Authorization header,
// e.g. Bearer(token).
func New(base, auth string, o Options) *Client {
	hc := o.HTTP
	if hc == nil {
		timeout := o.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		hc = &http.Client{Timeout: timeout}
	}
	retry := o.Retry
	if retry == nil {
		retry = Never
	}
	// The secret is the header's last word: the token, cut out of any message quoted.
	secret := auth[strings.LastIndex(auth, " ")+1:]
	return &Client{base: strings.TrimRight(base, "/"), auth: auth, secret: secret, http: hc, retry: retry, pace: o.Pace, sleep: Sleep,
		cloud: o.Cloud, account: AccountOf(secret)}
}

// AccountOf names the account of token for observers (Request.Account): a digest, never the
// token, so that what one account's answers say is told apart from another's.
func AccountOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}

// Bearer is the Authorization header value of token.
func Bearer(token string) string { return "Bearer " + token }

// Requests is how many requests went to the cloud, retries included.
func (c *Client) Requests() int { return int(c.requests.Load()) }

// Do sends method path (with its query) and decodes a 2xx answer into out: nothing when out is
// nil, the raw bytes when out is a *[]byte, else its JSON. body, when not nil, is sent as JSON (a
// []byte as it is). A refused request is asked again as the client's Retry says. A non-2xx answer
// is an *Error; StatusOf and IsNotFound read it. A POST whose answer was lost or a 5xx is never
// asked again, whatever the rule (mayBeDone).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		payload = b
	default:
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return errors.Wrapf(err, "%s %s: encode the request", method, pathOnly(path))
		}
	}
	for attempt := 0; ; attempt++ {
		if c.pace != nil {
			if err := c.pace.wait(ctx, c.sleep); err != nil {
				return errors.Wrapf(err, "%s %s", method, pathOnly(path))
			}
		}
		status, header, data, err := c.once(ctx, method, path, payload, body != nil)
		if errors.Is(err, ErrNotAURL) {
			// Asking again would not mend the URL.
			return errors.Errorf("%s %s: %v", method, pathOnly(path), err)
		}
		if err != nil && ctx.Err() != nil {
			return errors.Wrapf(ctx.Err(), "%s %s", method, pathOnly(path))
		}
		if err == nil && status/100 == 2 {
			return c.decode(method, path, data, out)
		}
		if err == nil {
			err = &Error{Method: method, Path: pathOnly(path), Status: status, Message: c.message(status, data)}
		}
		var wait time.Duration
		again := false
		if !mayBeDone(method, status) {
			wait, again = c.retry(ctx, attempt, asked(method, status), header)
		}
		if !again {
			if attempt > 0 && retryable(status) {
				return errors.Wrapf(err, "gave up after %d attempts", attempt+1)
			}
			return err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return errors.Wrapf(err, "%s %s", method, pathOnly(path))
		}
	}
}

// once sends one request: the answer's status, header and body, or an *Error of status 0 when no
// answer came.
func (c *Client) once(ctx context.Context, method, path string, payload []byte, hasBody bool) (int, http.Header, []byte, error) {
	var rd io.Reader
	if hasBody {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		// The URL is not quoted: it may carry credentials.
		return 0, nil, nil, ErrNotAURL
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	c.requests.Add(1)
	start := time.Now()
	resp, err := c.http.Do(req)
	status := 0
	var allowance *Allowance
	if err == nil {
		status = resp.StatusCode
		allowance = allowanceOf(resp.Header, time.Now())
	}
	notify(ctx, Request{Cloud: c.cloud, Account: c.account, Method: method, Path: pathOnly(path), Status: status, Start: start,
		Duration: time.Since(start), Allowance: allowance})
	if err != nil {
		msg := "no answer"
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && c.http.Timeout > 0 {
			msg = fmt.Sprintf("no answer within %v", c.http.Timeout)
		}
		return 0, nil, nil, &Error{Method: method, Path: pathOnly(path), Message: msg}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, nil, &Error{Method: method, Path: pathOnly(path), Message: "the answer broke off"}
	}
	return resp.StatusCode, resp.Header, data, nil
}

func (c *Client) decode(method, path string, data []byte, out any) error {
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*o = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return errors.Wrapf(err, "%s %s: read the answer", method, pathOnly(path))
	}
	return nil
}

// message is the short reason of an error body for the user: both clouds answer
// {"message": ...} (DigitalOcean) or {"reason": ...} / {"code": ...} (Civo). Anything else is not
// quoted: a body that is not the API's own may hold anything. The token is cut out all the same.
func (c *Client) message(status int, body []byte) string {
	var e struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Code    string `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = strings.TrimSpace(e.Reason)
	}
	if msg == "" {
		msg = strings.TrimSpace(e.Code)
	}
	if c.secret != "" {
		msg = strings.ReplaceAll(msg, c.secret, "[redacted]")
	}
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage]) + "..."
	}
	if msg == "" {
		msg = strings.ToLower(http.StatusText(status))
	}
	return msg
}

// ErrNotAURL: the base URL and path make no URL (the URL itself is never said: it may carry
// credentials).
var ErrNotAURL = errors.New("the API URL is not a URL")

// Error is a request the API refused (Status is its HTTP status) or did not answer (Status 0).
type Error struct {
	Method, Path string
	Status       int
	// Message is the API's reason, short and without the token.
	Message string
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s %s: %s", e.Method, e.Path, e.Message)
	}
	if e.Message == "" {
		return fmt.Sprintf("%s %s: HTTP %d", e.Method, e.Path, e.Status)
	}
	return fmt.Sprintf("%s %s: HTTP %d %s", e.Method, e.Path, e.Status, e.Message)
}

// StatusOf is the HTTP status of the API's refusal in err; 0 when err is none or no answer came.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// IsNotFound says err is the API's 404.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// pathOnly is a request's path without its query, for messages.
func pathOnly(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[:i]
	}
	return path
}

// Sleep waits d, or less when ctx ends first (its error then); a d of zero or less returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
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
