package pulumiprovider

import (
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/digitalocean/godo"
)

// Client is a godo client of the API the provider config (or the environment) names, with the
// token provider.DigitalOcean.Resolve lets go there: what clusterplane itself asks of DigitalOcean
// outside the engine (a pool rotation). ErrNoToken without a token.
func Client(cfg *digitaloceanv1.DigitalOceanProviderConfig) (*godo.Client, error) {
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, err
	}
	return digitalocean.Godo(token, base, registryTimeout*3)
}
