package discover

import (
	"context"
	"testing"
	"time"
)

func TestNoMinuteEverSeesMoreRequestsThanDigitalOceanAllows(t *testing.T) {
	now := time.Unix(0, 0)
	p := newPacer(DefaultPerMinute, DefaultBurst)
	p.now = func() time.Time { return now }
	// sleep moves the fake clock on instead of waiting.
	sleep := func(_ context.Context, d time.Duration) error { now = now.Add(d); return nil }
	var at []time.Time
	for range 1000 {
		if err := p.wait(context.Background(), sleep); err != nil {
			t.Fatal(err)
		}
		at = append(at, now)
	}
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < time.Minute; j++ {
			n++
		}
		if n > 250 {
			t.Fatalf("%d requests in the minute from %v, DigitalOcean allows 250", n, at[i].Sub(time.Unix(0, 0)))
		}
	}
	if at[DefaultBurst-1] != time.Unix(0, 0) {
		t.Errorf("the first %d requests waited (until %v): a small account should be read at once", DefaultBurst, at[DefaultBurst-1])
	}
}

func TestRetryAfterIsReadInSecondsOrAsADateAndBounded(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"", time.Second},
		{"3", 3 * time.Second},
		{"100000", maxRetryAfter},
		{"soon", time.Second},
	} {
		if got := retryAfter(tt.header); got != tt.want {
			t.Errorf("Retry-After %q: %v, want %v", tt.header, got, tt.want)
		}
	}
}
