package pulumiprovider

import (
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
)

// Pools is a pool client of cfg's token and URL (or the environment's, under the provider's
// rule) in region, as the clusterplane plugin makes one: Civo's counterpart of
// pkg/cloud/digitalocean/pulumiprovider.Client, with which a rotation (pkg/change/rotation's CivoPools) creates and
// deletes pools.
func Pools(cfg *civov1.CivoProviderConfig, region string, opts ...pools.Option) (*pools.Client, error) {
	token, url, err := credentials(cfg)
	if err != nil {
		return nil, err
	}
	return pools.New(token, url, region, opts...)
}
