package cloudapi

import (
	"context"
	"testing"
	"time"
)

func TestNoMinuteEverSeesMoreRequestsThanItsBurstAndRefill(t *testing.T) {
	for _, tt := range []struct{ perMinute, burst, limit int }{
		{225, 20, 250}, // discover's pace under DigitalOcean's 250 a minute
		{60, 1, 61},
	} {
		now := time.Unix(0, 0)
		p := NewPacer(tt.perMinute, tt.burst)
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
			if n > tt.limit {
				t.Fatalf("%d a minute after %d: %d requests in the minute from %v, want at most %d",
					tt.perMinute, tt.burst, n, at[i].Sub(time.Unix(0, 0)), tt.limit)
			}
		}
		if at[tt.burst-1] != time.Unix(0, 0) {
			t.Errorf("the first %d requests waited (until %v): a small account should be read at once", tt.burst, at[tt.burst-1])
		}
	}
}
