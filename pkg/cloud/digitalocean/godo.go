package digitalocean

import (
	"context"
	"net/http"

	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// ErrTokenRefused is DigitalOcean's 401: the token is not one it takes.
var ErrTokenRefused = errors.New("401, the token was refused")

// Reads through godo, DigitalOcean's own client (a client Godo built), for the tests that read
// the loopback cloud as DigitalOcean's SDK does. Their lists go through godoPages, this package's
// one godo pager. clusterplane's own reads and writes go through Client alone.

// Sizes are every Droplet size DigitalOcean lists, with its monthly price.
func Sizes(ctx context.Context, client *godo.Client) ([]godo.Size, error) {
	return godoPages(func(opt *godo.ListOptions) ([]godo.Size, *godo.Response, error) {
		return client.Sizes.List(ctx, opt)
	})
}

// godoPages reads a godo list page by page, PerPage items a page, until godo says the page is
// the last, failing past DefaultMaxPages pages; a 401 is ErrTokenRefused.
func godoPages[T any](list func(opt *godo.ListOptions) ([]T, *godo.Response, error)) ([]T, error) {
	var all []T
	opt := &godo.ListOptions{Page: 1, PerPage: PerPage}
	for page := 1; page <= DefaultMaxPages; page++ {
		items, resp, err := list(opt)
		if err != nil {
			if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusUnauthorized {
				return nil, ErrTokenRefused
			}
			return nil, err
		}
		all = append(all, items...)
		if resp == nil || resp.Links == nil || resp.Links.IsLastPage() {
			return all, nil
		}
		// The next page is asked for by number, as pages does: godo's CurrentPage reads it from a
		// prev link, which an API may leave out, and then names page 1 again forever.
		opt.Page = page + 1
	}
	return nil, errors.Errorf("more than %d pages", DefaultMaxPages)
}
