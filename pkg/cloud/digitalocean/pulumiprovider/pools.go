package pulumiprovider

import (
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// Client is DigitalOcean's pool client (digitalocean.Client) of the API the provider config (or
// the environment) names, with the token provider.DigitalOcean.Resolve lets go there: what
// clusterplane itself asks of DigitalOcean outside the engine (a pool rotation). A read, an update
// or a delete refused with a 429 or a 5xx, or not answered, is asked again up to 4 times (a 429
// after its Retry-After, at most 30 s); a create is sent once. ErrNoToken without a token.
func Client(cfg *digitaloceanv1.DigitalOceanProviderConfig) (*digitalocean.Client, error) {
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, err
	}
	return digitalocean.New(base, token, digitalocean.Options{Options: cloudapi.Options{
		Timeout: registryTimeout * 3,
		Retry:   cloudapi.Patient(4, 30*time.Second),
	}}), nil
}
