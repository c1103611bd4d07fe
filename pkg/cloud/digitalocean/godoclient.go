package digitalocean

import (
	"net/http"
	"strings"
	"time"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Godo is a godo client of DigitalOcean's API at base (godo's own, DigitalOcean's, when "") with
// token. clusterplane's own calls go through Client, never godo: tests build one to hold the
// loopback cloud (pkg/loopback/fakedo) to what DigitalOcean's own SDK reads from its answers.
// godo's default HTTP client has no timeout, so each request gets timeout.
//
// godo.NewFromToken asks again, up to 4 times, after a 429 or a 5xx, whatever the method
// (go-retryablehttp's DefaultRetryPolicy): a create the cloud carried out but answered 500 for
// would be made again. A POST is therefore sent once, its failure returned, as Client sends its
// creates. Reads, updates and deletes keep godo's retries. This transport stays for godo, whose
// retries live in its own HTTP client.
func Godo(token, base string, timeout time.Duration) (*godo.Client, error) {
	c := godo.NewFromToken(token)
	c.HTTPClient = &http.Client{Transport: postOnce{retrying: c.HTTPClient.Transport, once: http.DefaultTransport,
		token: strings.Trim(strings.TrimSpace(token), "'")}, Timeout: timeout}
	c.UserAgent = "clusterplane"
	if base == "" {
		return c, nil
	}
	u, err := c.BaseURL.Parse(strings.TrimSuffix(base, "/") + "/")
	if err != nil {
		// url's error quotes the URL, which may carry credentials.
		return nil, cloudapi.ErrNotAURL
	}
	c.BaseURL = u
	return c, nil
}

// postOnce sends a POST through once, with the token as godo's own transport would send it, and
// every other request through godo's retrying transport.
type postOnce struct {
	retrying, once http.RoundTripper
	token          string
}

func (p postOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost {
		return p.retrying.RoundTrip(r)
	}
	out := r.Clone(r.Context())
	out.Header.Set("Authorization", "Bearer "+p.token)
	return p.once.RoundTrip(out)
}
