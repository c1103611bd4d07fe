package digitaloceanprovider

import (
	"net/http"
	"strings"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// Client is a godo client of the API the provider config (or the environment) names, with the
// token provider.DigitalOcean.Resolve lets go there: what clusterplane itself asks of DigitalOcean
// outside the engine (a pool rotation). ErrNoToken without a token.
func Client(cfg *digitaloceanv1.DigitalOceanProviderConfig) (*godo.Client, error) {
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, err
	}
	c := godo.NewFromToken(token)
	// godo's own client retries nothing; its default HTTP client has no timeout, so one is set.
	c.HTTPClient = &http.Client{Transport: c.HTTPClient.Transport, Timeout: registryTimeout * 3}
	u, err := c.BaseURL.Parse(strings.TrimSuffix(base, "/") + "/")
	if err != nil {
		return nil, errors.New("the DigitalOcean API URL is not a URL")
	}
	c.BaseURL = u
	c.UserAgent = "clusterplane"
	return c, nil
}
