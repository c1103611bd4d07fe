package deploy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// Promise: retries-four-more-within-thirty-seconds
func TestAnOperationTheCloudTurnedAwayForNowRunsAgainUnlessItLeftSomethingBehind(t *testing.T) {
	busy := &stackstate.EngineError{Command: "update", Cause: "POST https://api/v2/kubernetes/clusters: 429 (request \"r\") slow down", Status: 429}
	broken := &stackstate.EngineError{Command: "update", Cause: "POST https://api/v2/kubernetes/clusters: 500 (request \"r\") oops", Status: 500}
	invalid := &stackstate.EngineError{Command: "update", Cause: "POST https://api/v2/kubernetes/clusters: 422 (request \"r\") invalid size", Status: 422}
	left := []kinds.Live{{Type: "cluster", Name: "dev-fra1", ID: "id-1"}}
	tests := []struct {
		name string
		op   string
		// faults are the failures of the operation's first attempts, in order.
		faults []error
		// live is what the cloud holds under the name after a failed attempt.
		live []kinds.Live
		want outcome.Status
		// runs is how many times the engine ran the operation.
		runs int
	}{
		{name: "a throttled up is done on the next attempt", op: "update", faults: []error{busy}, want: outcome.Done, runs: 2},
		{name: "a server error twice is done on the third", op: "update", faults: []error{broken, broken}, want: outcome.Done, runs: 3},
		{name: "an up the cloud refused is not run again", op: "update", faults: []error{invalid}, want: outcome.Failed, runs: 1},
		{name: "an up whose failed create left a cluster is not run again", op: "update", faults: []error{broken},
			live: left, want: outcome.Failed, runs: 1},
		{name: "the attempts are bounded", op: "update", faults: []error{busy, busy, busy, busy, busy, busy}, want: outcome.Failed, runs: 3},
		{name: "a throttled refresh runs again", op: "refresh", faults: []error{busy}, want: outcome.Done, runs: 2},
		{name: "a throttled destroy runs again", op: "destroy", faults: []error{busy}, want: outcome.Done, runs: 2},
		{name: "a throttled preview runs again", op: "preview", faults: []error{busy}, want: outcome.Done, runs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			d.RetryWaits = []time.Duration{time.Millisecond, time.Millisecond}
			c := cluster(t)
			// The cloud holds live from the first look after the engine ran.
			var looked int
			c.Lookup = func(ctx context.Context, in proto.Message, resolve kinds.Resolve) (kinds.Found, error) {
				looked++
				if looked > 1 {
					return kinds.Found{Live: tt.live}, nil
				}
				return kinds.Found{}, nil
			}
			if tt.op != "update" {
				mustUp(ctx, t, d, c)
			}
			for _, err := range tt.faults {
				b.Fail(c.Key(), tt.op, err)
			}
			before := calls(b, tt.op)
			var o outcome.Outcome
			switch tt.op {
			case "update":
				o = d.Up(ctx, c, deploy.UpOptions{Yes: true})
			case "refresh":
				o = d.Refresh(ctx, c, deploy.RefreshOptions{})
			case "destroy":
				o = d.Destroy(ctx, c, deploy.DestroyOptions{})
			case "preview":
				o = d.Preview(ctx, c, deploy.PreviewOptions{})
			}
			if o.Status != tt.want || calls(b, tt.op)-before != tt.runs {
				t.Errorf("%s = %s (%v) after %d runs; want %s after %d", tt.op, o.Status, o.Err, calls(b, tt.op)-before, tt.want, tt.runs)
			}
			var leftBehind *outcome.LeftBehindError
			if tt.live != nil && (!errors.As(o.Err, &leftBehind) || len(o.Unmanaged) != len(tt.live)) {
				t.Errorf("the failed up does not name what it left: %v %v", o.Err, o.Unmanaged)
			}
		})
	}
}

func TestAWaitForAnotherAttemptEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d, b := deployer()
	d.RetryWaits = []time.Duration{time.Hour}
	c := cluster(t)
	b.Fail(c.Key(), "update", &stackstate.EngineError{Command: "update", Status: 503})
	time.AfterFunc(50*time.Millisecond, cancel)
	o := d.Up(ctx, c, deploy.UpOptions{Yes: true})
	if o.Status == outcome.Done || calls(b, "update") != 1 {
		t.Errorf("up cancelled while waiting to ask again = %s after %d runs, want not done after 1", o.Status, calls(b, "update"))
	}
}

// A provider plugin's 429 does not carry the cloud's Retry-After: before running the operation
// again, clusterplane asks the cloud (Throttled) and waits at least what it says; a server error
// is not a rate limit, and is not asked about.
func TestAfterA429TheNextAttemptWaitsWhatTheCloudAsks(t *testing.T) {
	busy := &stackstate.EngineError{Command: "update", Cause: "Unknown error response - status: 429 Too Many Requests", Status: 429}
	broken := &stackstate.EngineError{Command: "update", Cause: "POST https://api/v2/kubernetes/clusters: 503 busy", Status: 503}
	const asked = 300 * time.Millisecond
	tests := []struct {
		name  string
		fault error
		// asks tells whether the cloud is asked, and so the attempt waits at least asked.
		asks bool
	}{
		{"a 429", busy, true},
		{"a server error", broken, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			d.RetryWaits = []time.Duration{time.Millisecond}
			var askedFor []string
			d.Throttled = func(_ context.Context, target deploytarget.Target) time.Duration {
				askedFor = append(askedFor, target.Key())
				return asked
			}
			c := cluster(t)
			b.Fail(c.Key(), "update", tt.fault)
			start := time.Now()
			if o := d.Up(ctx, c, deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
				t.Fatalf("up = %s %v, want done on the second attempt", o.Status, o.Err)
			}
			waited := time.Since(start)
			if tt.asks && (len(askedFor) != 1 || askedFor[0] != c.Key() || waited < asked) {
				t.Errorf("asked the cloud for %v and waited %v, want asked once for %s and a wait of at least %v", askedFor, waited, c.Key(), asked)
			}
			if !tt.asks && len(askedFor) != 0 {
				t.Errorf("asked the cloud for %v after a server error", askedFor)
			}
		})
	}
}
