package digitalocean

import (
	"context"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Allowance reads what the account of token has left of its requests an hour from the headers of
// one GET of the API's Probe (every answer of DigitalOcean's API carries them), asked once: a 429,
// the answer of an account with none left, says it too. ok is false when the answer did not say.
func (Driver) Allowance(ctx context.Context, base, token string) (cloudapi.Allowance, bool, error) {
	if base == "" {
		base = Env.API
	}
	c := cloudapi.New(base, cloudapi.Bearer(token), cloudapi.Options{Timeout: lookupTimeout, Cloud: string(ID)})
	a, ok, err := c.HourLeft(ctx, Env.Probe)
	return a, ok, errors.Wrap(err, "read the account's requests left this hour")
}
