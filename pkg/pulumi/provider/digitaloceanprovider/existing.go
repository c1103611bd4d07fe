package digitaloceanprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// Named is a cluster or node pool of the account: its id, name and (for a cluster) region.
type Named struct {
	ID, Name, Region string
}

// ClustersNamed are the account's clusters named name, in every region, read page by page: a
// create that DigitalOcean carried out but answered with a 5xx is retried by the provider's
// client, and the account then holds several of one name. ErrNoToken without a token.
func ClustersNamed(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, name string) ([]Named, error) {
	var out []Named
	err := pages(ctx, cfg, "/v2/kubernetes/clusters", "kubernetes_clusters", name, &out)
	return out, errors.Wrap(err, "list DigitalOcean's Kubernetes clusters")
}

// PoolsNamed are the node pools named name of the cluster with id clusterID; none when the
// cluster does not exist.
func PoolsNamed(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, clusterID, name string) ([]Named, error) {
	var out []Named
	err := pages(ctx, cfg, "/v2/kubernetes/clusters/"+url.PathEscape(clusterID)+"/node_pools", "node_pools", name, &out)
	if cloudapi.IsNotFound(err) {
		return nil, nil
	}
	return out, errors.Wrapf(err, "list the node pools of DigitalOcean cluster %s", clusterID)
}

// pages reads every page of a list at path, whose items are under key, keeping those named name.
func pages(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, path, key, name string, out *[]Named) error {
	ctx, cancel := context.WithTimeout(ctx, 3*registryTimeout)
	defer cancel()
	api, err := client(cfg)
	if err != nil {
		return err
	}
	for page := 1; page <= maxPages; page++ {
		var list map[string]json.RawMessage
		if err := api.Do(ctx, http.MethodGet, fmt.Sprintf("%s?page=%d&per_page=%d", path, page, perPage), nil, &list); err != nil {
			return err
		}
		var items []struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Region string `json:"region"`
		}
		if err := json.Unmarshal(list[key], &items); err != nil && len(list[key]) > 0 {
			return errors.Wrap(err, "read the answer")
		}
		for _, it := range items {
			if it.Name == name {
				*out = append(*out, Named{ID: it.ID, Name: it.Name, Region: it.Region})
			}
		}
		var links struct {
			Pages struct {
				Next string `json:"next"`
			} `json:"pages"`
		}
		_ = json.Unmarshal(list["links"], &links)
		if links.Pages.Next == "" {
			return nil
		}
	}
	return errors.Errorf("more than %d pages", maxPages)
}
