// Package digitalocean is the part of DigitalOcean's REST API that clusterplane reads outside a
// provider plugin: the account's Kubernetes clusters with their node pools, the Kubernetes
// options (versions, sizes, regions), a cluster's upgrades, clusterlint runs, the kubeconfig and
// whether the account has a container registry. Callers get typed values; the JSON of each
// answer is declared here once.
//
// The requests go through pkg/cloud/cloudapi rather than godo, DigitalOcean's own client (which
// only tests build, through Godo), because the callers need what godo does not give:
//   - each caller's own retry rule and a shared pacer (discover stays under 250 requests a
//     minute, a preview's look-up gives up within seconds), where godo retries every 429 and 5xx
//     its own way;
//   - the refusal's HTTP status (cloudapi.StatusOf), by which a 404 or a 412 is told from a
//     failure;
//   - errors that never quote the token, the base URL or the transport's error;
//   - any base URL, so the loopback test clouds (pkg/loopback/fakedo) answer in tests and in the
//     sandbox.
//
// Lists are read by one pager (pages): 200 items a page, the next page asked for by number while
// the answer has a links.pages.next, never by following that link, so the token goes only to
// the API it was given for.
package digitalocean

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// DefaultMaxPages bounds a list when Options names no bound: 200,000 clusters, far more than an
// account holds, yet an API that always answers a next page cannot hold a caller forever.
const DefaultMaxPages = 1000

// Options are a client's transport (timeout, retry rule, pacer: cloudapi's) and its bound on
// a list's pages.
type Options struct {
	cloudapi.Options
	// MaxPages is the most pages a list reads before it fails; 0 is DefaultMaxPages.
	MaxPages int
}

// Client is DigitalOcean's API with one token. It is safe for concurrent use.
type Client struct {
	api *cloudapi.Client
	// once sends each request once, whatever the retry rule: a pool's create, which the cloud can
	// carry out and still answer 5xx, is never sent again unseen (the caller finds what it made
	// by its mark before it creates again).
	once     *cloudapi.Client
	maxPages int
}

// New is DigitalOcean's API at base (DigitalOcean's own when "") with token.
func New(base, token string, o Options) *Client {
	if base == "" {
		base = Env.API
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	o.Cloud = "digitalocean"
	once := o.Options
	once.Retry = cloudapi.Never
	return &Client{api: cloudapi.New(base, cloudapi.Bearer(token), o.Options),
		once: cloudapi.New(base, cloudapi.Bearer(token), once), maxPages: o.MaxPages}
}

// Requests is how many requests went to DigitalOcean, retries included.
func (c *Client) Requests() int { return c.api.Requests() + c.once.Requests() }

// pages is the one pager of DigitalOcean's lists: it reads path page by page, PerPage items a
// page, and hands each page's items (decoded from the answer's key) to each. It stops after the
// last page (no links.pages.next, or no items) or when each says no more, and fails past
// c.maxPages pages.
func pages[T any](ctx context.Context, c *Client, path, key string, each func([]T) (more bool)) error {
	for page := 1; ; page++ {
		if page > c.maxPages {
			return errors.Errorf("more than %d pages", c.maxPages)
		}
		var answer map[string]json.RawMessage
		q := fmt.Sprintf("?page=%d&per_page=%d", page, PerPage)
		if err := c.api.Do(ctx, http.MethodGet, path+q, nil, &answer); err != nil {
			return err
		}
		var items []T
		if raw := answer[key]; len(raw) > 0 {
			if err := json.Unmarshal(raw, &items); err != nil {
				return errors.Wrapf(err, "GET %s: read the answer", path)
			}
		}
		var links struct {
			Pages struct {
				Next string `json:"next"`
			} `json:"pages"`
		}
		// A page without links is the last one: the links are only read for a next page.
		_ = json.Unmarshal(answer["links"], &links)
		if !each(items) || links.Pages.Next == "" || len(items) == 0 {
			return nil
		}
	}
}

// WalkClusters hands the account's clusters to each, a page at a time, until each says no more:
// a caller looking for one cluster stops at the page that holds it.
func (c *Client) WalkClusters(ctx context.Context, each func([]Cluster) (more bool)) error {
	err := pages(ctx, c, "/v2/kubernetes/clusters", "kubernetes_clusters", each)
	return errors.Wrap(err, "list DigitalOcean's Kubernetes clusters")
}

// Clusters are every cluster of the account, with their node pools.
func (c *Client) Clusters(ctx context.Context) ([]Cluster, error) {
	var all []Cluster
	err := c.WalkClusters(ctx, func(page []Cluster) bool {
		all = append(all, page...)
		return true
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// Cluster is the cluster with id. A cluster that does not exist is an error that
// cloudapi.IsNotFound recognises.
func (c *Client) Cluster(ctx context.Context, id string) (Cluster, error) {
	var one struct {
		Cluster Cluster `json:"kubernetes_cluster"`
	}
	if err := c.api.Do(ctx, http.MethodGet, clusterPath(id), nil, &one); err != nil {
		return Cluster{}, errors.Wrapf(err, "read DigitalOcean cluster %s", id)
	}
	return one.Cluster, nil
}

// NodePools are the node pools of the cluster with id. A cluster that does not exist is an error
// that cloudapi.IsNotFound recognises.
func (c *Client) NodePools(ctx context.Context, clusterID string) ([]NodePool, error) {
	var all []NodePool
	err := pages(ctx, c, clusterPath(clusterID)+"/node_pools", "node_pools", func(page []NodePool) bool {
		all = append(all, page...)
		return true
	})
	if err != nil {
		return nil, errors.Wrapf(err, "list the node pools of DigitalOcean cluster %s", clusterID)
	}
	return all, nil
}

// Options are the Kubernetes versions, node sizes and regions DigitalOcean offers.
func (c *Client) Options(ctx context.Context) (KubernetesOptions, error) {
	var answer struct {
		Options KubernetesOptions `json:"options"`
	}
	if err := c.api.Do(ctx, http.MethodGet, "/v2/kubernetes/options", nil, &answer); err != nil {
		return KubernetesOptions{}, errors.Wrap(err, "read DigitalOcean's Kubernetes options")
	}
	return answer.Options, nil
}

// Upgrades are the versions the cluster with id may upgrade to now.
func (c *Client) Upgrades(ctx context.Context, id string) ([]Version, error) {
	var answer struct {
		Versions []Version `json:"available_upgrade_versions"`
	}
	if err := c.api.Do(ctx, http.MethodGet, clusterPath(id)+"/upgrades", nil, &answer); err != nil {
		return nil, errors.Wrap(err, "read the cluster's available upgrades")
	}
	return answer.Versions, nil
}

// RunClusterlint starts DigitalOcean's clusterlint on the cluster with id and returns the run's
// id, by which ClusterlintResults reads its findings.
func (c *Client) RunClusterlint(ctx context.Context, id string) (string, error) {
	var run struct {
		RunID string `json:"run_id"`
	}
	if err := c.api.Do(ctx, http.MethodPost, clusterPath(id)+"/clusterlint", map[string]any{}, &run); err != nil {
		return "", errors.Wrap(err, "run DigitalOcean's clusterlint")
	}
	return run.RunID, nil
}

// ClusterlintResults are the findings of the clusterlint run runID on the cluster with id.
// DigitalOcean answers 404 (cloudapi.IsNotFound) while the run has no results yet.
func (c *Client) ClusterlintResults(ctx context.Context, id, runID string) (Clusterlint, error) {
	var res Clusterlint
	path := clusterPath(id) + "/clusterlint?run_id=" + url.QueryEscape(runID)
	if err := c.api.Do(ctx, http.MethodGet, path, nil, &res); err != nil {
		return Clusterlint{}, errors.Wrap(err, "read DigitalOcean's clusterlint results")
	}
	return res, nil
}

// Kubeconfig is the kubeconfig of the cluster with id, by pkg/cloud/kubeconfig's rules: in
// memory only, never quoted in an error.
func (c *Client) Kubeconfig(ctx context.Context, id string) ([]byte, error) {
	return ReadKubeconfig(ctx, func(ctx context.Context, path string) ([]byte, error) {
		var data []byte
		err := c.api.Do(ctx, http.MethodGet, path, nil, &data)
		return data, err
	}, id)
}

// HasRegistry says whether the account has a container registry: GET /v2/registry answers 404
// when it has none and 412 when it has several (the newer API lists them). Any other refusal is
// an error: nothing is decided.
func (c *Client) HasRegistry(ctx context.Context) (bool, error) {
	err := c.api.Do(ctx, http.MethodGet, "/v2/registry", nil, nil)
	switch {
	case err == nil, cloudapi.StatusOf(err) == http.StatusPreconditionFailed:
		return true, nil
	case cloudapi.IsNotFound(err):
		return false, nil
	}
	return false, errors.Wrap(err, "read DigitalOcean's container registry")
}

func clusterPath(id string) string { return "/v2/kubernetes/clusters/" + url.PathEscape(id) }

// Slugs are the versions' slugs, in order.
func Slugs(vs []Version) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Slug)
	}
	return out
}
