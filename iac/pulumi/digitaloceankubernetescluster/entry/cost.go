package entry

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// cost is what an operation on one cluster's stack sends DigitalOcean, as traced on the loopback
// cloud. Adopting it (e2e TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout):
// the cluster read by the default-pool tag's check (the driver's EnsureDefaultPool) or the provider's
// import, and that tag's PUT; then in adopt's preview and again in its up, two reads of the cluster
// and one of its credentials. A drift (bench/takeover.sh): the refresh's read of the cluster; a
// refresh runs no program and reads the cluster only. Both look the cluster up by name too (the
// module's digitaloceanprovider.LiveCluster, adopt's look-up for a second cluster of the name): in
// the run's one list of the account (Cost.List), not a list of their own.
var cost = kinds.CostOn(digitalocean.Driver{}, func(cloud.Requests) (adopt, refresh kinds.Estimate) {
	return kinds.Estimate{Own: func(int) int { return 2 + 2*3 }, Lists: true},
		kinds.Estimate{Own: func(int) int { return 1 }, Lists: true}
})
