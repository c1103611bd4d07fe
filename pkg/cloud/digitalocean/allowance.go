package digitalocean

import (
	"context"
	"net/http"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Allowance reads what the account of token has left of its requests an hour, from the headers
// of one GET /v2/account (every answer of DigitalOcean's API carries them), asked once: a 429,
// the answer of an account with none left, says it too. ok is false when the answer did not say.
func (Driver) Allowance(ctx context.Context, base, token string) (cloudapi.Allowance, bool, error) {
	c := New(base, token, Options{Options: cloudapi.Asking()})
	err := c.once.Do(ctx, http.MethodGet, "/v2/account", nil, nil)
	if err != nil && cloudapi.StatusOf(err) != http.StatusTooManyRequests {
		return cloudapi.Allowance{}, false, errors.Wrap(err, "read the account's requests left this hour")
	}
	a := c.once.Allowance()
	if a == nil {
		return cloudapi.Allowance{}, false, nil
	}
	return *a, true, nil
}
