package digitaloceanprovider

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestRetryAsksAgainOnlyForARateLimitOrAServerErrorAndWithinBounds(t *testing.T) {
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
		{name: "a 429 waits the seconds asked", status: 429, retryAfter: "2", want: 2 * time.Second, again: true},
		{name: "a 429 waits until the date asked", status: 429, retryAfter: now.Add(3 * time.Second).Format(http.TimeFormat),
			want: 3 * time.Second, again: true},
		{name: "a 429 with a date past asks at once", status: 429, retryAfter: now.Add(-time.Minute).Format(http.TimeFormat), again: true},
		{name: "a 429 without Retry-After backs off", status: 429, attempt: 1, want: time.Second, again: true},
		{name: "a 429 with a Retry-After not understood backs off", status: 429, retryAfter: "soon", want: firstWait, again: true},
		{name: "a 503 backs off", status: 503, attempt: 2, want: 2 * time.Second, again: true},
		{name: "retries are bounded", status: 429, retryAfter: "1", attempt: maxRetries},
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
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}}
			if tt.retryAfter != "" {
				resp.Header.Set("Retry-After", tt.retryAfter)
			}
			wait, again := retry(ctx, resp, tt.attempt, now)
			if again != tt.again || (again && wait != tt.want) {
				t.Errorf("retry = %v, %t; want %v, %t", wait, again, tt.want, tt.again)
			}
		})
	}
}
