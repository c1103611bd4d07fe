package deploy

import (
	"context"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/retry"
)

// retrying runs op on t again while the cloud turns it away for now (package retry), with the
// deployer's waits and its way of asking the cloud how long to wait after a 429.
func (d *Deployer) retrying(ctx context.Context, t deploytarget.Target, op func() error, again func(error) bool) error {
	var throttled func(context.Context) time.Duration
	if d.Throttled != nil {
		throttled = func(ctx context.Context) time.Duration { return d.Throttled(ctx, t) }
	}
	return retry.Run(ctx, d.RetryWaits, throttled, op, again)
}
