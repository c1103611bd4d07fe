package entry

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// cost is what an operation on one cluster's stack sends DigitalOcean, as traced on the loopback
// cloud. Adopting it (e2e TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout):
// the cluster read by the default-pool tag's check (the driver's EnsureDefaultPool) or the provider's
// import, and that tag's PUT; then in adopt's preview and again in its up, the module's look-up of
// the live version (digitaloceanprovider.LiveVersion: the account's clusters, 200 a page), two
// reads of the cluster and one of its credentials. A drift (bench/takeover.sh): the look-up and
// the refresh's read of the cluster; a refresh runs no program and reads the cluster only. The
// look-up's pages are counted for every stack, though a run lists the account once and its
// stacks share that list (package runlist): within a run, the estimate is high by them.
var cost = kinds.CostOn(digitalocean.Driver{},
	func(r cloud.Requests, clusters int) int { return 2 + 2*(cloud.Pages(clusters, r.ClustersPerPage)+3) },
	func(r cloud.Requests, clusters int) int { return cloud.Pages(clusters, r.ClustersPerPage) + 1 })
