package deploy

import (
	"context"
	"time"

	"github.com/pkg/errors"
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
	var engine *EngineError
	return errors.As(err, &engine) && engine.Transient()
}

// retrying runs op until it succeeds, fails otherwise than transiently, or the waits run out.
// Before each new attempt again, when set, is asked whether to make it, with the last error.
func (d *Deployer) retrying(ctx context.Context, op func() error, again func(error) bool) error {
	waits := d.RetryWaits
	if waits == nil {
		waits = DefaultRetryWaits
	}
	err := op()
	for _, wait := range waits {
		if !transient(err) || again != nil && !again(err) {
			return err
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
