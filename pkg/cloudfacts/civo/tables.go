package civo

import (
	"maps"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// This file is what Civo offers as the repository's tables hold it (sizes' prices, regions,
// Kubernetes versions), each read on the day pkg/cloudfacts names. Civo's API lists no prices:
// the table is its only prices.
//
// Prices: Kubernetes node sizes (g4s.kube.*) from https://www.civo.com/pricing as listed on
// cloudfacts.TableDate; the control plane costs nothing. Monthly list prices in US dollars,
// without tax, credits or bandwidth.
//
// Regions: the region codes GET /v2/regions lists (`civo region ls`). Versions: the versions GET
// /v2/kubernetes/versions lists (`civo kubernetes versions`), k3s and talos, without the
// deprecated ones a new cluster cannot use. Both as this repository's examples, tests and
// loopback cloud (pkg/loopback/fakecivo) record them on cloudfacts.RegionsDate and
// cloudfacts.VersionsDate.

// sizes are Civo Kubernetes node sizes' monthly prices by name.
var sizes = map[string]float64{
	"g4s.kube.xsmall":  5,
	"g4s.kube.small":   10,
	"g4s.kube.medium":  20,
	"g4s.kube.large":   40,
	"g4s.kube.xlarge":  80,
	"g4s.kube.2xlarge": 160,
}

// unpriced are sizes Civo offers whose monthly price the table does not hold (GPU sizes, priced
// by the hour and changing often): validate knows them, an estimate names them unpriced.
var unpriced = []string{"an.g1.l40s.kube.x1"}

// regions are the regions Civo offers, in the order its own list gives them.
var regions = []cloudfacts.Region{
	{Name: "lon1", Where: "London, United Kingdom"}, {Name: "fra1", Where: "Frankfurt, Germany"},
	{Name: "nyc1", Where: "New York, United States"}, {Name: "phx1", Where: "Phoenix, United States"},
	{Name: "mum1", Where: "Mumbai, India"},
}

// versions are the Kubernetes versions Civo offers a new cluster, oldest first.
var versions = []string{"1.28.7-k3s1", "1.29.8-k3s1", "1.30.5-k3s1", "1.31.1-k3s1", "talos-v1.5.0", "talos-v1.7.6"}

// Prices are the table's: Civo's API lists none.
func (Facts) Prices() cloudfacts.Prices {
	return cloudfacts.Prices{Cloud: string(ID), Sizes: maps.Clone(sizes), Source: cloudfacts.TableSource,
		Date: cloudfacts.TableDate, Unpriced: slices.Clone(unpriced)}
}

// Regions are the table's.
func (Facts) Regions() []cloudfacts.Region { return slices.Clone(regions) }

// Versions are the table's of distribution ("k3s" or "talos"; "" for both).
func (Facts) Versions(distribution string) []string {
	var out []string
	for _, v := range versions {
		if distribution == "" || DistributionOf(v) == distribution {
			out = append(out, v)
		}
	}
	return out
}

// DistributionOf is the distribution a version belongs to, read from its name as Civo's own list
// does when it does not say: talos-v1.5.0 is talos, anything else k3s.
func DistributionOf(version string) string {
	if strings.HasPrefix(version, "talos") {
		return "talos"
	}
	return "k3s"
}
