package cloudapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// Godo is a godo client of DigitalOcean's API at base (godo's own, DigitalOcean's, when "") with
// token: for the calls clusterplane makes through DigitalOcean's own SDK (a pool rotation, the
// sizes' prices) rather than Do. godo's default HTTP client has no timeout, so each request gets
// timeout; godo retries nothing itself.
func Godo(token, base string, timeout time.Duration) (*godo.Client, error) {
	c := godo.NewFromToken(token)
	c.HTTPClient = &http.Client{Transport: c.HTTPClient.Transport, Timeout: timeout}
	c.UserAgent = "clusterplane"
	if base == "" {
		return c, nil
	}
	u, err := c.BaseURL.Parse(strings.TrimSuffix(base, "/") + "/")
	if err != nil {
		// url's error quotes the URL, which may carry credentials.
		return nil, errors.New("the DigitalOcean API URL is not a URL")
	}
	c.BaseURL = u
	return c, nil
}
