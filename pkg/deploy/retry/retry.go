// Package retry runs again an engine operation the cloud turned away for now.
//
// The provider plugins run with their own retries off (provider.PluginEnv): the DigitalOcean
// plugin's HTTP client asks again after a 5xx even for a POST, so a create the cloud carried out
// but answered 500 for was made again, once per retry. clusterplane asks again instead, one
// level up: it runs again an operation the cloud turned away for now (EngineError.Transient), and
// before running an up again it looks that the failed attempt left nothing in the cloud.
package retry

import (
	"context"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// DefaultWaits are the waits before each new attempt: four more attempts within 30 s, as the
// plugin's own client made (http_retry_max 4, waits of 1 to 30 s).
var DefaultWaits = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// MaxThrottleWait bounds the wait a cloud's Retry-After adds before one new attempt: DigitalOcean's
// per-minute limit clears within a minute; a longer wait (its hourly limit) is left to the user.
const MaxThrottleWait = 2 * time.Minute

// Run runs op until it succeeds, fails otherwise than transiently, or waits (nil for
// DefaultWaits) run out. Before each new attempt again, when set, is asked whether to make it,
// with the last error; after a 429 the attempt waits at least what throttled, when set, says the
// cloud asks, up to MaxThrottleWait.
func Run(ctx context.Context, waits []time.Duration, throttled func(context.Context) time.Duration, op func() error, again func(error) bool) error {
	if waits == nil {
		waits = DefaultWaits
	}
	err := op()
	for _, wait := range waits {
		if !transient(err) || again != nil && !again(err) {
			return err
		}
		if isThrottled(err) && throttled != nil {
			wait = max(wait, min(throttled(ctx), MaxThrottleWait))
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		err = op()
	}
	return err
}

// transient tells that err is the cloud turning an operation away for now.
func transient(err error) bool {
	var engine *stackstate.EngineError
	return errors.As(err, &engine) && engine.Transient()
}

// isThrottled tells that err is the cloud's 429.
func isThrottled(err error) bool {
	var engine *stackstate.EngineError
	return errors.As(err, &engine) && engine.Status == 429
}

// CloudRetryAfter asks the target's cloud how long it wants to be left alone, with the token
// and API its provider config resolves to: one GET of the cloud's Probe, whose 429 names the
// wait. A target without a token, or whose config does not resolve (the manifest's checks
// refuse it), is 0.
func CloudRetryAfter(ctx context.Context, t deploytarget.Target) time.Duration {
	cloud, ownToken, ownURL, ok := stackinput.ProviderConfig(t.Input)
	if !ok {
		return 0
	}
	token, base, err := cloud.Resolve(ownToken, ownURL)
	if err != nil || token == "" {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return cloudapi.Throttled(ctx, cloud, base, token)
}
