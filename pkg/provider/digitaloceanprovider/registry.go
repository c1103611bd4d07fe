package digitaloceanprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/pkg/errors"
)

// DefaultAPIURL is DigitalOcean's API when the provider config and the environment name none.
const DefaultAPIURL = "https://api.digitalocean.com"

// registryTimeout bounds each look-up: a slow API must not hold a preview up for long.
const registryTimeout = 10 * time.Second

// Registry is what the account's container registry look-up found.
type Registry int

// The answers of HasRegistry.
const (
	// RegistryUnknown: no token, or the API did not answer plainly; nothing is decided.
	RegistryUnknown Registry = iota
	// RegistryFound: the account has a registry (or several).
	RegistryFound
	// RegistryMissing: the account has none, so DigitalOcean would refuse registry integration.
	RegistryMissing
)

// HasRegistry asks DigitalOcean's API whether the account of the configured token (or
// DIGITALOCEAN_TOKEN) has a container registry: GET /v2/registry answers 404 when it has none and
// 412 when it has several. The pinned provider enables registry integration only after creating
// the cluster and fails then (terraform-provider-digitalocean PR #963), so the module asks first.
// It never returns the token, and any failure to ask reads as RegistryUnknown.
func HasRegistry(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig) Registry {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	resp, err := get(ctx, cfg, "/v2/registry")
	if err != nil {
		return RegistryUnknown
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusPreconditionFailed:
		return RegistryFound
	case http.StatusNotFound:
		return RegistryMissing
	}
	return RegistryUnknown
}

// ErrNoToken: neither the provider config nor DIGITALOCEAN_TOKEN has a token to ask with.
var ErrNoToken = errors.New("no DigitalOcean API token (providerConfig.apiToken or " + provider.DigitalOceanTokenEnv + ")")

// get asks DigitalOcean's API (the config's URL, DIGITALOCEAN_API_URL, or the default) for path
// with the config's token (or DIGITALOCEAN_TOKEN), which never appears in an error.
func get(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, path string) (*http.Response, error) {
	token := provider.Setting(cfg.GetApiToken(), provider.DigitalOceanTokenEnv)
	if token == "" {
		return nil, ErrNoToken
	}
	base := provider.Setting(cfg.GetApiUrl(), provider.DigitalOceanAPIURLEnv)
	if base == "" {
		base = DefaultAPIURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+path, nil)
	if err != nil {
		return nil, errors.New("the DigitalOcean API URL is not a URL")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, errors.Wrap(err, "ask DigitalOcean's API")
	}
	return resp, nil
}

// LiveVersion is the version slug of the cluster named name, "" when the account has none of that
// name, read from DigitalOcean's API page by page. The provider's own lookup (the
// getKubernetesCluster function) reads the first page of the account's clusters only, 20 by
// default (terraform-provider-digitalocean v2.75.0 datasource_kubernetes_cluster.go,
// dataSourceDigitalOceanKubernetesClusterRead), so in an account of more clusters it would take
// a running cluster for a new one.
func LiveVersion(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	for page := 1; page <= maxPages; page++ {
		resp, err := get(ctx, cfg, fmt.Sprintf("/v2/kubernetes/clusters?page=%d&per_page=%d", page, perPage))
		if err != nil {
			return "", err
		}
		var list struct {
			Clusters []struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"kubernetes_clusters"`
			Links struct {
				Pages struct {
					Next string `json:"next"`
				} `json:"pages"`
			} `json:"links"`
			// Message is DigitalOcean's reason when it refuses.
			Message string `json:"message"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list)
		status := resp.StatusCode
		resp.Body.Close()
		if status != http.StatusOK {
			return "", errors.Errorf("list DigitalOcean's Kubernetes clusters: HTTP %d %s", status, list.Message)
		}
		if err != nil {
			return "", errors.Wrap(err, "read DigitalOcean's Kubernetes clusters")
		}
		for _, c := range list.Clusters {
			if c.Name == name {
				return c.Version, nil
			}
		}
		if list.Links.Pages.Next == "" {
			return "", nil
		}
	}
	return "", errors.Errorf("list DigitalOcean's Kubernetes clusters: more than %d pages", maxPages)
}

// The pages LiveVersion reads: DigitalOcean serves up to 200 clusters a page.
const (
	perPage  = 200
	maxPages = 50
)
