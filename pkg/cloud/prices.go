package cloud

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
)

// read holds what ReadPrices found, once per process and source: a fleet of a hundred manifests
// makes one sizes request, not a hundred.
var read = struct {
	sync.Mutex
	found map[string]readResult
}{found: map[string]readResult{}}

type readResult struct {
	prices  cost.Prices
	warning string
}

// ReadPrices are d's prices for a review: from its API when the environment's token reads them
// (at the environment's API URL when it names one), else its table. It is the one place that
// chooses between the API and the table. A failing API is not a silent fallback (a review must
// not read table prices as the cloud's): the table's prices come with a warning that says so.
// The warning quotes the API's error, which the drivers' clients (pkg/cloud/cloudapi) write
// without the token or the API URL.
func ReadPrices(ctx context.Context, d Driver) (cost.Prices, string) {
	env := d.Env()
	token, base := os.Getenv(env.TokenEnv), os.Getenv(env.URLEnv)
	// Keyed by where the prices come from; a token counts only as its digest.
	digest := sha256.Sum256([]byte(token))
	key := fmt.Sprintf("%s %x %s", d.ID(), digest[:8], base)
	read.Lock()
	defer read.Unlock()
	if r, ok := read.found[key]; ok {
		return r.prices, r.warning
	}
	r := readResult{prices: d.Prices()}
	if token != "" {
		p, ok, err := d.LivePrices(ctx, base, token)
		switch {
		case err != nil:
			r.warning = fmt.Sprintf("warning: %v; the cost is priced from %s of %s", err, r.prices.Source, r.prices.Date)
		case ok:
			r.prices = p
		}
	}
	read.found[key] = r
	return r.prices, r.warning
}
