package digitalocean

import (
	"maps"
	"slices"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// This file is what DigitalOcean offers as the repository's tables hold it (sizes' prices,
// regions, Kubernetes versions), each read on the day pkg/cloudfacts names. The driver
// (pkg/cloud/digitalocean) reads the same from DigitalOcean's API when a token is present.
//
// Prices: worker nodes are Droplets billed at the Droplet price (capped at 672 hours a month);
// the high-availability control plane is $40 a month. Source:
// https://docs.digitalocean.com/products/kubernetes/details/pricing/ (the HA fee) and
// https://www.digitalocean.com/pricing/droplets (the sizes), as listed on cloudfacts.TableDate.
// The sizes API (price_monthly) is used instead whenever a token is present. Monthly list prices
// in US dollars, without tax, credits or bandwidth.
//
// Regions and versions: the region slugs and version slugs GET /v2/kubernetes/options lists
// (`doctl kubernetes options regions`, `... versions`), as this repository's examples, tests and
// loopback cloud (pkg/loopback/fakedo) record them on cloudfacts.RegionsDate and
// cloudfacts.VersionsDate.

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

// haFee is the monthly price of DigitalOcean's high-availability control plane, which its sizes
// API does not list.
const haFee = 40

// unpriced are sizes DigitalOcean offers whose monthly price the table does not hold (GPU sizes,
// priced by the hour and changing often): validate knows them, an estimate names them unpriced.
var unpriced = []string{"gpu-h100x1-80gb", "gpu-h100x8-640gb"}

// regions are the regions DigitalOcean offers, in the order its own list gives them.
var regions = []cloudfacts.Region{
	{Name: "nyc1", Where: "New York 1"}, {Name: "nyc3", Where: "New York 3"}, {Name: "sfo2", Where: "San Francisco 2"},
	{Name: "sfo3", Where: "San Francisco 3"}, {Name: "ams3", Where: "Amsterdam 3"}, {Name: "sgp1", Where: "Singapore 1"},
	{Name: "lon1", Where: "London 1"}, {Name: "fra1", Where: "Frankfurt 1"}, {Name: "tor1", Where: "Toronto 1"},
	{Name: "blr1", Where: "Bangalore 1"}, {Name: "syd1", Where: "Sydney 1"}, {Name: "atl1", Where: "Atlanta 1"},
}

// versions are the Kubernetes versions DigitalOcean offers a new cluster, oldest first.
var versions = []string{"1.30.10-do.0", "1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"}

// Prices are the table's, the HA fee included.
func (Facts) Prices() cloudfacts.Prices {
	return cloudfacts.Prices{Cloud: string(ID), Sizes: maps.Clone(sizes), HAFee: haFee, Source: cloudfacts.TableSource,
		Date: cloudfacts.TableDate, Unpriced: slices.Clone(unpriced)}
}

// Regions are the table's.
func (Facts) Regions() []cloudfacts.Region { return slices.Clone(regions) }

// Versions are the table's: DigitalOcean has one distribution.
func (Facts) Versions(string) []string { return slices.Clone(versions) }
