package deploy

import (
	"context"
	"io"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/retry"
)

// retrier runs an operation again while the cloud turns it away for now (package retry): the
// deployer's waits (RetryWaits) and its way of asking the cloud how long to wait after a 429
// (Throttled), without the rest of the Deployer.
type retrier struct {
	waits     []time.Duration
	throttled func(ctx context.Context, t deploytarget.Target) time.Duration
}

// retrier is the deployer's way of running an operation again.
func (d *Deployer) retrier() retrier {
	return retrier{waits: d.RetryWaits, throttled: d.Throttled}
}

// run runs op on t, again while the cloud turns it away for now and again (when set) agrees.
func (r retrier) run(ctx context.Context, t deploytarget.Target, op func() error, again func(error) bool) error {
	var throttled func(context.Context) time.Duration
	if r.throttled != nil {
		throttled = func(ctx context.Context) time.Duration { return r.throttled(ctx, t) }
	}
	return retry.Run(ctx, r.waits, throttled, op, again)
}

// progressTo is where a target's engine progress goes (Deployer.Progress); nil for none.
type progressTo func(t deploytarget.Target) io.Writer

// of is t's progress writer, nil for none.
func (p progressTo) of(t deploytarget.Target) io.Writer {
	if p == nil {
		return nil
	}
	return p(t)
}
