// Package defaultpool marks a DigitalOcean cluster's default node pool so that the cluster can be
// imported.
//
// The DigitalOcean provider imports a cluster only when exactly one of its pools carries the tag
// terraform:default-node-pool (resourceDigitalOceanKubernetesClusterImportState in
// terraform-provider-digitalocean v2.75.0, digitalocean/kubernetes/resource_kubernetes_cluster.go):
// with one pool it adds the tag itself, with several untagged pools it refuses. Clusters made by
// doctl or the control panel carry no such tag, so adopting one with extra pools needs the tag
// first, on the pool the manifest names as its default pool. Adding a tag to a pool changes
// nothing else on it: the request sends the tags only.
package defaultpool

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// Tag is the tag the DigitalOcean provider reads a cluster's default pool by
// (terraform-provider-digitalocean, resource_kubernetes_node_pool.go,
// DigitaloceanKubernetesDefaultNodePoolTag): adoption tags the pool the manifest names, the fleet
// scan reads the tagged pool as the cluster's nodePool, and a rotated default pool must carry it
// for the cluster to keep its id (the kinds' effects give it to pkg/change/rotation). It lives
// here, with the driver, as a DigitalOcean fact, not in shared code.
const Tag = "terraform:default-node-pool"

// Client speaks to DigitalOcean's API with a token.
type Client struct {
	// URL is the API's base URL (DigitalOcean's own is its driver's Env.API, which this package,
	// imported by the driver, cannot name); Token the account's token.
	URL, Token string
	HTTP       *http.Client
}

// Result says what Ensure did.
type Result struct {
	// PoolID is the pool tagged; "" when nothing needed tagging.
	PoolID string
}

// Ensure tags the pool named poolName of cluster clusterID as its default pool when the provider
// could not import the cluster otherwise: several pools and none tagged. One pool (the provider
// tags it itself) or one pool tagged already asks nothing more. Several pools tagged, or no pool
// of that name, is an error that says what to correct; nothing is changed then.
func (c Client) Ensure(ctx context.Context, clusterID, poolName string) (Result, error) {
	var got struct {
		Cluster struct {
			NodePools []struct {
				ID   string   `json:"id"`
				Name string   `json:"name"`
				Tags []string `json:"tags"`
			} `json:"node_pools"`
		} `json:"kubernetes_cluster"`
	}
	path := "/v2/kubernetes/clusters/" + url.PathEscape(clusterID)
	if err := c.do(ctx, http.MethodGet, path, nil, &got); err != nil {
		return Result{}, errors.Wrapf(err, "read DigitalOcean cluster %s", clusterID)
	}
	pools := got.Cluster.NodePools
	var tagged []string
	for _, p := range pools {
		if slices.Contains(p.Tags, Tag) {
			tagged = append(tagged, p.Name)
		}
	}
	switch {
	case len(tagged) > 1:
		return Result{}, errors.Errorf("DigitalOcean cluster %s has %d pools tagged %s (%s): the provider imports only one "+
			"as the default pool; remove the tag from all but %s", clusterID, len(tagged), Tag, strings.Join(tagged, ", "), poolName)
	case len(tagged) == 1 || len(pools) < 2:
		return Result{}, nil
	}
	for _, p := range pools {
		if p.Name != poolName {
			continue
		}
		// The pool's tags as the cloud has them, plus the one the provider reads: the same request
		// the provider sends for a cluster of one pool.
		body := map[string]any{"tags": append(slices.Clone(p.Tags), Tag)}
		if err := c.do(ctx, http.MethodPut, path+"/node_pools/"+url.PathEscape(p.ID), body, nil); err != nil {
			return Result{}, errors.Wrapf(err, "tag pool %s of DigitalOcean cluster %s as its default pool", poolName, clusterID)
		}
		return Result{PoolID: p.ID}, nil
	}
	var names []string
	for _, p := range pools {
		names = append(names, p.Name)
	}
	return Result{}, errors.Errorf("DigitalOcean cluster %s has no pool named %s (spec.defaultNodePool.nodePoolName); its pools are %s",
		clusterID, poolName, strings.Join(names, ", "))
}

// do sends one request, once: a tag is asked for only when the cluster was just read. Errors name
// the method, path and status, never the token or the base URL (cloudapi's rule).
func (c Client) do(ctx context.Context, method, path string, body, out any) error {
	return cloudapi.New(c.URL, cloudapi.Bearer(c.Token), cloudapi.Options{HTTP: c.HTTP}).Do(ctx, method, path, body, out)
}
