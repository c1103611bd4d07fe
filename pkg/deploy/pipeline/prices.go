package pipeline

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// Prices are the prices of the cloud id that a run's reports are priced with, as its driver
// reads them (cloud.ReadPrices: the API's when the environment's token reads them, else the
// table), and the warning to say when the API failed. A cloud no driver knows prices nothing,
// never as another cloud, and says so in the prices' source. A run reaches the clouds' drivers
// here, so that the command line every kind's program shares (pkg/cli) links none of them.
func Prices(ctx context.Context, id string) (cost.Prices, string) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return clouds.Prices(id), ""
	}
	return cloud.ReadPrices(ctx, d)
}
