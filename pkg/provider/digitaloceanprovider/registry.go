package digitaloceanprovider

import (
	"context"
	"net/http"
	"strings"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
)

// DefaultAPIURL is DigitalOcean's API when the provider config and the environment name none.
const DefaultAPIURL = "https://api.digitalocean.com"

// registryTimeout bounds the look-up: a slow API must not hold a preview up for long.
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
	token := provider.Setting(cfg.GetApiToken(), provider.DigitalOceanTokenEnv)
	if token == "" {
		return RegistryUnknown
	}
	base := provider.Setting(cfg.GetApiUrl(), provider.DigitalOceanAPIURLEnv)
	if base == "" {
		base = DefaultAPIURL
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/v2/registry", nil)
	if err != nil {
		return RegistryUnknown
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
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
