package clouds

import (
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
)

// Prices are the prices of the cloud id as the repository's table (its driver's) holds them. A
// cloud no driver knows prices nothing (its sizes are then unknown, never free) and its Source
// says why: another cloud's prices would read as its own.
func Prices(id string) cost.Prices {
	d, err := Get(cloud.ID(id))
	if err != nil {
		return cost.Unknown(id, err)
	}
	return d.Prices()
}
