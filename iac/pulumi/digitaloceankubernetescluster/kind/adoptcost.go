package kind

import (
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider/digitaloceanprovider"
)

// adoptCost is what adopting one cluster sends DigitalOcean, as traced on the loopback cloud
// (e2e TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout): the cluster read
// by the default-pool tag's check (pkg/cloud/defaultpool) or the provider's import, and that tag's
// PUT; then in adopt's preview and again in its up, the module's look-up of the live version
// (digitaloceanprovider.LiveVersion: the account's clusters, 200 a page), two reads of the
// cluster and one of its credentials.
var adoptCost = &kinds.AdoptCost{
	Cloud:     "digitalocean",
	PerMinute: digitaloceanprovider.RequestsPerMinute,
	Requests: func(clusters int) int {
		return 2 + 2*(digitaloceanprovider.Pages(clusters, 200)+3)
	},
}
