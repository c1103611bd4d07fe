// Package civo is the part of Civo's REST API that clusterplane reads outside a provider plugin
// and outside a pool's own calls (pkg/cloud/civo/pools): the Kubernetes clusters of a region with
// their pools, its firewalls, the Kubernetes versions, the regions and a cluster's kubeconfig. Callers get typed
// values; the JSON of each answer is declared here once.
//
// The requests go through pkg/cloud/cloudapi rather than civogo, Civo's own client, because
// civogo's list reads the first page only, takes no context, passes every refusal through an
// error that drops its HTTP status (by which a 404 is told from a failure, a 429 from a final
// refusal), and has no pacer or retry rule of the caller's choosing. cloudapi's errors never
// quote the token or the base URL, and any base URL is taken, so the loopback test cloud
// (pkg/loopback/fakecivo) answers in tests and in the sandbox.
//
// Lists are read by one pager (pages): 100 items a page (Civo's largest), page after page until
// the answer's page reaches its pages.
package civo

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// DefaultMaxPages bounds a list when Options names no bound: 100,000 clusters in a region, far
// more than an account holds, yet an API that always answers another page cannot hold a caller
// forever.
const DefaultMaxPages = 1000

// Options are a client's transport (timeout, retry rule, pacer: cloudapi's) and its bound on
// a list's pages.
type Options struct {
	cloudapi.Options
	// MaxPages is the most pages a list reads before it fails; 0 is DefaultMaxPages.
	MaxPages int
}

// Client is Civo's API with one token. Civo's API is per region: the calls that need one take
// it. It is safe for concurrent use.
type Client struct {
	api      *cloudapi.Client
	maxPages int
}

// New is Civo's API at base (Civo's own when "") with token.
func New(base, token string, o Options) *Client {
	if base == "" {
		base = Env.API
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	o.Cloud = "civo"
	// "bearer", as civogo spells the scheme: what Civo's own client sends is what its API
	// surely takes (the scheme is case-insensitive by RFC 9110).
	return &Client{api: cloudapi.New(base, "bearer "+token, o.Options), maxPages: o.MaxPages}
}

// Requests is how many requests went to Civo, retries included.
func (c *Client) Requests() int { return c.api.Requests() }

// API is the cloudapi client the Client sends through, for a pool client (pools.WithAPI) that is
// to share its retry rule, its timeout and its count.
func (c *Client) API() *cloudapi.Client { return c.api }

// pages is the one pager of Civo's lists: it reads path page by page, PerPage items a page, with
// the query q (the region), and hands each page's items to each. It stops after the last page
// (page reaches pages, or no items) or when each says no more, and fails past c.maxPages pages.
func pages[T any](ctx context.Context, c *Client, path string, q url.Values, each func([]T) (more bool)) error {
	for page := 1; ; page++ {
		if page > c.maxPages {
			return errors.Errorf("more than %d pages", c.maxPages)
		}
		query := url.Values{"page": {strconv.Itoa(page)}, "per_page": {strconv.Itoa(PerPage)}}
		for k, v := range q {
			query[k] = v
		}
		var answer struct {
			Pages int `json:"pages"`
			Items []T `json:"items"`
		}
		if err := c.api.Do(ctx, http.MethodGet, path+"?"+query.Encode(), nil, &answer); err != nil {
			return err
		}
		if !each(answer.Items) || page >= answer.Pages || len(answer.Items) == 0 {
			return nil
		}
	}
}

// WalkClusters hands region's clusters to each, a page at a time, until each says no more: a
// caller looking for one cluster stops at the page that holds it.
func (c *Client) WalkClusters(ctx context.Context, region string, each func([]Cluster) (more bool)) error {
	err := pages(ctx, c, "/v2/kubernetes/clusters", inRegion(region), each)
	if err != nil {
		where := ""
		if region != "" {
			where = " in " + region
		}
		return errors.Wrapf(err, "list Civo's Kubernetes clusters%s", where)
	}
	return nil
}

// Clusters are every cluster of region, with their pools.
func (c *Client) Clusters(ctx context.Context, region string) ([]Cluster, error) {
	var all []Cluster
	err := c.WalkClusters(ctx, region, func(page []Cluster) bool {
		all = append(all, page...)
		return true
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// Cluster is region's cluster with id. A cluster that does not exist is an error that
// cloudapi.IsNotFound recognises.
func (c *Client) Cluster(ctx context.Context, region, id string) (Cluster, error) {
	var cl Cluster
	if err := c.api.Do(ctx, http.MethodGet, clusterPath(id)+query(region), nil, &cl); err != nil {
		return Cluster{}, errors.Wrapf(err, "read Civo cluster %s", id)
	}
	return cl, nil
}

// Versions are the Kubernetes versions Civo offers, of every distribution.
func (c *Client) Versions(ctx context.Context) ([]KubernetesVersion, error) {
	var versions []KubernetesVersion
	if err := c.api.Do(ctx, http.MethodGet, "/v2/kubernetes/versions", nil, &versions); err != nil {
		return nil, errors.Wrap(err, "read Civo's Kubernetes versions")
	}
	return versions, nil
}

// Regions are the regions the account may use (Civo answers them in one list, unpaged).
func (c *Client) Regions(ctx context.Context) ([]Region, error) {
	var regions []Region
	if err := c.api.Do(ctx, http.MethodGet, "/v2/regions", nil, &regions); err != nil {
		return nil, errors.Wrap(err, "list Civo's regions")
	}
	return regions, nil
}

// Firewalls are region's firewalls with their rules (Civo answers them in one list, unpaged).
func (c *Client) Firewalls(ctx context.Context, region string) ([]Firewall, error) {
	var firewalls []Firewall
	if err := c.api.Do(ctx, http.MethodGet, "/v2/firewalls"+query(region), nil, &firewalls); err != nil {
		return nil, errors.Wrap(err, "list Civo's firewalls")
	}
	return firewalls, nil
}

// Kubeconfig is the kubeconfig of region's cluster with id, by pkg/cloud/kubeconfig's rules: in
// memory only, never quoted in an error. Cluster's model has no field for it, so a list or a
// look-up never holds one.
func (c *Client) Kubeconfig(ctx context.Context, region, id string) ([]byte, error) {
	return ReadKubeconfig(ctx, func(ctx context.Context, path string) ([]byte, error) {
		var data []byte
		err := c.api.Do(ctx, http.MethodGet, path+query(region), nil, &data)
		return data, err
	}, id)
}

func clusterPath(id string) string { return "/v2/kubernetes/clusters/" + url.PathEscape(id) }

// inRegion is the query naming region; none when region is "" (the account's default region).
func inRegion(region string) url.Values {
	if region == "" {
		return url.Values{}
	}
	return url.Values{"region": {region}}
}

// query is inRegion as a URL's query, "" when empty.
func query(region string) string {
	if region == "" {
		return ""
	}
	return "?" + inRegion(region).Encode()
}
