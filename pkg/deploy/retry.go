package deploy

import (
	"context"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// The provider plugins run with their own retries off (provider.PluginEnv): the DigitalOcean
// plugin's HTTP client asks again after a 5xx even for a POST, so a create the cloud carried out
// but answered 500 for was made again, once per retry. clusterplane asks again instead, one
// level up: it runs again an operation the cloud turned away for now (EngineError.Transient), and
// before running an up again it looks that the failed attempt left nothing in the cloud.

// DefaultRetryWaits are the waits before each new attempt: four more attempts within 30 s, as
// the plugin's own client made (http_retry_max 4, waits of 1 to 30 s).
var DefaultRetryWaits = []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// transient tells that err is the cloud turning an operation away for now.
func transient(err error) bool {
	var engine *stackstate.EngineError
	return errors.As(err, &engine) && engine.Transient()
}

// MaxThrottleWait bounds the wait a cloud's Retry-After adds before one new attempt: DigitalOcean's
// per-minute limit clears within a minute; a longer wait (its hourly limit) is left to the user.
const MaxThrottleWait = 2 * time.Minute

// throttled tells that err is the cloud's 429.
func throttled(err error) bool {
	var engine *stackstate.EngineError
	return errors.As(err, &engine) && engine.Status == 429
}

// retrying runs op on t until it succeeds, fails otherwise than transiently, or the waits run
// out. Before each new attempt again, when set, is asked whether to make it, with the last error;
// after a 429 the attempt waits at least what the cloud asks (Throttled).
func (d *Deployer) retrying(ctx context.Context, t deploytarget.Target, op func() error, again func(error) bool) error {
	waits := d.RetryWaits
	if waits == nil {
		waits = DefaultRetryWaits
	}
	err := op()
	for _, wait := range waits {
		if !transient(err) || again != nil && !again(err) {
			return err
		}
		if throttled(err) && d.Throttled != nil {
			wait = max(wait, min(d.Throttled(ctx, t), MaxThrottleWait))
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

// CloudRetryAfter is Deployer.Throttled asking the target's cloud, with the token and API its
// provider config resolves to: one GET of the cloud's Probe, whose 429 names the wait. A target
// without a token, or whose config does not resolve (the manifest's checks refuse it), is 0.
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
