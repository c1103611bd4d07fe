package digitalocean

import (
	"context"
	"net/http"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// What DigitalOcean offers as the repository's tables hold it (prices, regions, versions) is a
// fact of DigitalOcean's (pkg/cloudfacts/digitalocean), which Driver embeds; this file reads the
// same prices from DigitalOcean's sizes API (GET /v2/sizes).

// lookupTimeout bounds the sizes API's answer: a price is not worth waiting for, and an
// unreachable API falls back to the table quickly.
const lookupTimeout = 10 * time.Second

// LivePrices reads every size's monthly price from DigitalOcean's sizes API at base with token;
// the HA fee, which the API does not list, is the table's. A size the API lists without a price
// is the table's when the table prices it (as a failing API falls back to it), its source said;
// else unknown, never free.
func (d Driver) LivePrices(ctx context.Context, base, token string) (cost.Prices, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	client := New(base, token, Options{Options: cloudapi.Options{Timeout: lookupTimeout}})
	listed, err := client.SizeDetails(ctx)
	if cloudapi.StatusOf(err) == http.StatusUnauthorized {
		return cost.Prices{}, true, errors.New("DigitalOcean sizes API: 401, the token was refused")
	}
	if err != nil {
		return cost.Prices{}, true, errors.Wrap(err, "DigitalOcean sizes API")
	}
	table := d.Prices()
	p := cost.Prices{Cloud: string(ID), Sizes: map[string]float64{}, HAFee: table.HAFee,
		Source: "DigitalOcean sizes API", Date: time.Now().UTC().Format(time.DateOnly),
		HAFeeSource: cost.TableSource + " of " + cost.TableDate}
	for _, s := range listed {
		price, inTable := table.Sizes[s.Slug]
		switch {
		case s.PriceMonthly > 0:
			p.Sizes[s.Slug] = s.PriceMonthly
		case inTable:
			p.Sizes[s.Slug] = price
			if p.SizeSources == nil {
				p.SizeSources = map[string]string{}
			}
			p.SizeSources[s.Slug] = cost.TableSource + " of " + cost.TableDate + " (the sizes API lists no price)"
		default:
			p.Unpriced = append(p.Unpriced, s.Slug)
		}
	}
	return p, true, nil
}
