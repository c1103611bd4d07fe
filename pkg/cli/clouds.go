package cli

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// Prices are the prices of the cloud id for a run's reports, as its driver reads them
// (cloud.ReadPrices: the API's when the environment's token reads them, else the table), and the
// warning to say when the API failed. A cloud no driver knows prices nothing, never as another
// cloud, and says so in the prices' source.
func Prices(ctx context.Context, id string) (cost.Prices, string) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return clouds.Prices(id), ""
	}
	return cloud.ReadPrices(ctx, d)
}

// Regions are the regions the repository's table of the cloud id lists (its driver's); a cloud
// no driver knows is an error naming it.
func Regions(id string) ([]cost.Region, error) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return nil, err
	}
	return d.Regions(), nil
}
