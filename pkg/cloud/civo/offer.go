package civo

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	civofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/civo"
)

// What Civo offers as the repository's tables hold it (prices, regions, versions) is a fact of
// Civo's (pkg/cloudfacts/civo), which Driver embeds.

// LivePrices: Civo's API lists no prices, so none are read (ok is false): the table is all there
// is, and no request is made.
func (Driver) LivePrices(context.Context, string, string) (cost.Prices, bool, error) {
	return cost.Prices{}, false, nil
}

// DistributionOf is the distribution a version belongs to (civofacts.DistributionOf).
func DistributionOf(version string) string { return civofacts.DistributionOf(version) }
