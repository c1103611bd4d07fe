package cloudapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestBoundedAsksAgainOnlyForARateLimitOrAServerErrorAndWithinBounds(t *testing.T) {
	const (
		times    = 3
		first    = 500 * time.Millisecond
		maxWaitB = 4 * time.Second
	)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		status     int
		retryAfter string
		attempt    int
		deadline   time.Duration // 0: none
		want       time.Duration
		again      bool
	}{
		{name: "an answer is kept", status: 200},
		{name: "a not found is kept", status: 404},
		{name: "a refused token is kept", status: 401},
		{name: "no answer is kept", status: 0},
		{name: "a 429 waits the seconds asked", status: 429, retryAfter: "2", want: 2 * time.Second, again: true},
		{name: "a 429 waits until the date asked", status: 429, retryAfter: now.Add(3 * time.Second).Format(http.TimeFormat),
			want: 3 * time.Second, again: true},
		{name: "a 429 with a date past asks at once", status: 429, retryAfter: now.Add(-time.Minute).Format(http.TimeFormat), again: true},
		{name: "a 429 without Retry-After backs off", status: 429, attempt: 1, want: time.Second, again: true},
		{name: "a 429 with a Retry-After not understood backs off", status: 429, retryAfter: "soon", want: first, again: true},
		{name: "a 503 backs off", status: 503, attempt: 2, want: 2 * time.Second, again: true},
		{name: "retries are bounded", status: 429, retryAfter: "1", attempt: times},
		{name: "a wait over the bound gives up", status: 429, retryAfter: "60"},
		{name: "a wait past the deadline gives up", status: 429, retryAfter: "2", deadline: time.Second},
		{name: "a wait within the deadline is taken", status: 429, retryAfter: "1", deadline: 2 * time.Second,
			want: time.Second, again: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			wait, again := bounded(ctx, tt.attempt, tt.status, h, times, first, maxWaitB, now)
			if again != tt.again || (again && wait != tt.want) {
				t.Errorf("retry = %v, %t; want %v, %t", wait, again, tt.want, tt.again)
			}
		})
	}
}

func TestRetryAfterIsReadInSecondsOrAsADateAndBounded(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"", time.Second},
		{"3", 3 * time.Second},
		{"100000", 2 * time.Minute},
		{"soon", time.Second},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
	} {
		if got := RetryAfter(tt.header, 2*time.Minute, now); got != tt.want {
			t.Errorf("Retry-After %q: %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestEachRuleAsksAgainWhatItsCallerNeedsAndNothingElse(t *testing.T) {
	ctx := context.Background()
	h := http.Header{"Retry-After": {"7"}}
	tests := []struct {
		name            string
		rule            Retry
		attempt, status int
		want            time.Duration
		again           bool
	}{
		{"never asks a 429 again", Never, 0, 429, 0, false},
		{"backoff doubles", Backoff(3, 500*time.Millisecond), 2, 503, 2 * time.Second, true},
		{"backoff ignores Retry-After", Backoff(3, 500*time.Millisecond), 0, 429, 500 * time.Millisecond, true},
		{"backoff stops after its times", Backoff(3, 500*time.Millisecond), 3, 429, 0, false},
		{"backoff keeps no answer", Backoff(3, 500*time.Millisecond), 0, 0, 0, false},
		{"backoff keeps a 404", Backoff(3, 500*time.Millisecond), 0, 404, 0, false},
		{"patient waits a 429's Retry-After", Patient(4, 2*time.Minute), 0, 429, 7 * time.Second, true},
		{"patient asks no answer again after a second", Patient(4, 2*time.Minute), 1, 0, time.Second, true},
		{"patient asks a 5xx again after a second", Patient(4, 2*time.Minute), 1, 502, time.Second, true},
		{"patient stops after its times", Patient(4, 2*time.Minute), 4, 429, 0, false},
		{"patient keeps a 403", Patient(4, 2*time.Minute), 0, 403, 0, false},
	}
	for _, tt := range tests {
		wait, again := tt.rule(ctx, tt.attempt, tt.status, h)
		if again != tt.again || (again && wait != tt.want) {
			t.Errorf("%s: %v, %t; want %v, %t", tt.name, wait, again, tt.want, tt.again)
		}
	}
}

func TestThrottledIsTheWaitA429AsksForAndNothingOtherwise(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter string
		want       time.Duration
	}{
		{"a 429 with Retry-After", http.StatusTooManyRequests, "7", 7 * time.Second},
		{"a 429 without one", http.StatusTooManyRequests, "", time.Second},
		{"an answer", http.StatusOK, "7", 0},
		{"a server error", http.StatusServiceUnavailable, "7", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = append(asked, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			}))
			defer srv.Close()
			got := New(srv.URL, Bearer("tok"), Options{}).Throttled(context.Background(), "/v2/account")
			if got != tt.want || len(asked) != 1 || asked[0] != "GET /v2/account Bearer tok" {
				t.Errorf("Throttled = %v after %q, want %v after one GET /v2/account with the token", got, asked, tt.want)
			}
		})
	}
	if got := New("http://127.0.0.1:1", Bearer("tok"), Options{}).Throttled(context.Background(), "/v2/account"); got != 0 {
		t.Errorf("Throttled with no answer = %v, want 0", got)
	}
}
