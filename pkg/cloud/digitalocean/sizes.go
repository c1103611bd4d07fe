package digitalocean

import (
	"context"
	"net/http"

	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// ErrTokenRefused is DigitalOcean's 401: the token is not one it takes.
var ErrTokenRefused = errors.New("401, the token was refused")

// Sizes are every Droplet size DigitalOcean lists, with its monthly price, read through godo
// (client, cloudapi.Godo's), whose retries of a read after a 429 or a 5xx the prices keep. It is
// this package's one godo pager: 200 sizes a page, until godo says the page is the last.
func Sizes(ctx context.Context, client *godo.Client) ([]godo.Size, error) {
	var all []godo.Size
	opt := &godo.ListOptions{PerPage: PerPage}
	for page := 1; page <= DefaultMaxPages; page++ {
		sizes, resp, err := client.Sizes.List(ctx, opt)
		if err != nil {
			if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusUnauthorized {
				return nil, ErrTokenRefused
			}
			return nil, err
		}
		all = append(all, sizes...)
		if resp == nil || resp.Links == nil || resp.Links.IsLastPage() {
			return all, nil
		}
		// The next page is asked for by number, as pages does: godo's CurrentPage reads it from a
		// prev link, which an API may leave out, and then names page 1 again forever.
		opt.Page = page + 1
	}
	return nil, errors.Errorf("more than %d pages", DefaultMaxPages)
}
