package entry

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// cost is what an operation on one node pool's stack sends DigitalOcean, as traced on the
// loopback cloud. Adopting it
// (e2e TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout): the provider's
// import of a pool by its id lists every cluster of the account, 20 a page, to find the pool's
// cluster (resourceDigitalOceanKubernetesNodePoolImportState, terraform-provider-digitalocean
// v2.75.0 digitalocean/kubernetes/resource_kubernetes_node_pool.go:156-189), then reads the pool;
// adopt's preview and its up each import it, and adopt's look-up of the pool's name reads the
// run's one list of the account (Cost.List). A drift or a refresh reads the pool once
// (bench/takeover.sh).
var cost = kinds.CostOn(digitalocean.Driver{}, func(r cloud.Requests) (adopt, refresh kinds.Estimate) {
	return kinds.Estimate{Own: func(clusters int) int { return 2 * (cloud.Pages(clusters, r.ImportClustersPerPage) + 1) }, Lists: true},
		kinds.Estimate{Own: func(int) int { return 1 }}
})
