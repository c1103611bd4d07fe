package civoprovider

import (
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civopool"
)

// Pools is a pool client of cfg's token and URL (or the environment's, under the provider's
// rule) in region, as the clusterplane plugin makes one: Civo's counterpart of
// digitaloceanprovider.Client, with which a rotation (pkg/change/rotation's CivoPools) creates and
// deletes pools.
func Pools(cfg *civov1.CivoProviderConfig, region string, opts ...civopool.Option) (*civopool.Client, error) {
	token, url, _, err := client(cfg, region)
	if err != nil {
		return nil, err
	}
	return civopool.New(token, url, region, opts...)
}
