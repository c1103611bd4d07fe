package digitalocean

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// This file is what DigitalOcean offers, as pkg/change asks it: the repository's tables (sizes'
// prices, regions, Kubernetes versions), each read on the day pkg/change/cost names, and the
// same read from DigitalOcean's API (the sizes' prices, GET /v2/sizes; the Kubernetes options,
// GET /v2/kubernetes/options).
//
// Prices: worker nodes are Droplets billed at the Droplet price (capped at 672 hours a month);
// the high-availability control plane is $40 a month. Source:
// https://docs.digitalocean.com/products/kubernetes/details/pricing/ (the HA fee) and
// https://www.digitalocean.com/pricing/droplets (the sizes), as listed on cost.TableDate. The
// sizes API (price_monthly) is used instead whenever a token is present. Monthly list prices in
// US dollars, without tax, credits or bandwidth.
//
// Regions and versions: the region slugs and version slugs GET /v2/kubernetes/options lists
// (`doctl kubernetes options regions`, `... versions`), as this repository's examples, tests and
// loopback cloud (pkg/loopback/fakedo) record them on cost.RegionsDate and cost.VersionsDate.

// sizes are DigitalOcean Droplet sizes' monthly prices by slug.
var sizes = map[string]float64{
	"s-1vcpu-2gb":       12,
	"s-2vcpu-2gb":       18,
	"s-2vcpu-4gb":       24,
	"s-4vcpu-8gb":       48,
	"s-8vcpu-16gb":      96,
	"s-2vcpu-4gb-amd":   28,
	"s-4vcpu-8gb-amd":   56,
	"s-4vcpu-8gb-intel": 56,
	"c-2":               42,
	"c-4":               84,
	"c-8":               168,
	"c-16":              336,
	"g-2vcpu-8gb":       63,
	"g-4vcpu-16gb":      126,
	"g-8vcpu-32gb":      252,
	"gd-2vcpu-8gb":      68,
	"gd-4vcpu-16gb":     136,
	"m-2vcpu-16gb":      84,
	"m-4vcpu-32gb":      168,
	"m-8vcpu-64gb":      336,
	"so-2vcpu-16gb":     131,
	"so-4vcpu-32gb":     262,
}

// haFee is the monthly price of DigitalOcean's high-availability control plane.
const haFee = 40

// unpriced are sizes DigitalOcean offers whose monthly price the table does not hold (GPU sizes,
// priced by the hour and changing often): validate knows them, an estimate names them unpriced.
var unpriced = []string{"gpu-h100x1-80gb", "gpu-h100x8-640gb"}

// regions are the regions DigitalOcean offers, in the order its own list gives them.
var regions = []cost.Region{
	{Name: "nyc1", Where: "New York 1"}, {Name: "nyc3", Where: "New York 3"}, {Name: "sfo2", Where: "San Francisco 2"},
	{Name: "sfo3", Where: "San Francisco 3"}, {Name: "ams3", Where: "Amsterdam 3"}, {Name: "sgp1", Where: "Singapore 1"},
	{Name: "lon1", Where: "London 1"}, {Name: "fra1", Where: "Frankfurt 1"}, {Name: "tor1", Where: "Toronto 1"},
	{Name: "blr1", Where: "Bangalore 1"}, {Name: "syd1", Where: "Sydney 1"}, {Name: "atl1", Where: "Atlanta 1"},
}

// versions are the Kubernetes versions DigitalOcean offers a new cluster, oldest first.
var versions = []string{"1.30.10-do.0", "1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"}

// Prices are the table's, the HA fee included.
func (Driver) Prices() cost.Prices {
	return cost.Prices{Cloud: string(ID), Sizes: maps.Clone(sizes), HAFee: haFee, Source: cost.TableSource,
		Date: cost.TableDate, Unpriced: slices.Clone(unpriced)}
}

// Regions are the table's.
func (Driver) Regions() []cost.Region { return slices.Clone(regions) }

// Versions are the table's: DigitalOcean has one distribution.
func (Driver) Versions(string) []string { return slices.Clone(versions) }

// lookupTimeout bounds the sizes API's answer: a price is not worth waiting for, and an
// unreachable API falls back to the table quickly.
const lookupTimeout = 10 * time.Second

// LivePrices reads every size's monthly price from DigitalOcean's sizes API at base with token;
// the HA fee, which the API does not list, is the table's. A size the API lists without a price
// is the table's when the table prices it (as a failing API falls back to it), its source said;
// else unknown, never free.
func (Driver) LivePrices(ctx context.Context, base, token string) (cost.Prices, bool, error) {
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
	p := cost.Prices{Cloud: string(ID), Sizes: map[string]float64{}, HAFee: haFee,
		Source: "DigitalOcean sizes API", Date: time.Now().UTC().Format(time.DateOnly),
		HAFeeSource: cost.TableSource + " of " + cost.TableDate}
	for _, s := range listed {
		table, inTable := sizes[s.Slug]
		switch {
		case s.PriceMonthly > 0:
			p.Sizes[s.Slug] = s.PriceMonthly
		case inTable:
			p.Sizes[s.Slug] = table
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
