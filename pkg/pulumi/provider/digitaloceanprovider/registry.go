package digitaloceanprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider"
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

// endpoint is the token and API URL provider.DigitalOcean.Resolve lets clusterplane use for cfg,
// the cloud's own API when it names none; ErrNoToken without a token.
func endpoint(cfg *digitaloceanv1.DigitalOceanProviderConfig) (token, base string, err error) {
	token, base, err = provider.DigitalOcean.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
	switch {
	case err != nil:
		return "", "", err
	case token == "":
		return "", "", ErrNoToken
	case base == "":
		base = DefaultAPIURL
	}
	return token, base, nil
}

// get asks DigitalOcean's API for path with the token and URL provider.DigitalOcean.Resolve gives
// (the default API when it gives none); the token never appears in an error. A 429 or a 5xx is
// asked again (see retry), so one busy moment of the API does not fail a preview.
func get(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, path string) (*http.Response, error) {
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+path, nil)
		if err != nil {
			return nil, errors.New("the DigitalOcean API URL is not a URL")
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, errors.Wrap(err, "ask DigitalOcean's API")
		}
		wait, again := retry(ctx, resp, attempt, time.Now())
		if !again {
			return resp, nil
		}
		// The refused answer is dropped; reading it out lets the connection be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, errors.Wrap(ctx.Err(), "ask DigitalOcean's API")
		case <-timer.C:
		}
	}
}

// How get asks again: at most maxRetries more times, each wait at most maxWait. The look-ups'
// context (registryTimeout) bounds the whole.
const (
	maxRetries = 3
	maxWait    = 4 * time.Second
	firstWait  = 500 * time.Millisecond
)

// retry says whether resp (of attempt, counted from 0) is worth asking again and after how long:
// a 429 (DigitalOcean's rate limit) or a 5xx, after the Retry-After the API asks for (seconds or
// an HTTP date) or else a doubling backoff. It gives up when retries are used up, when the API asks
// for longer than maxWait, or when the wait would outlast ctx: the caller then reads the refused
// answer itself and names its status.
func retry(ctx context.Context, resp *http.Response, attempt int, now time.Time) (time.Duration, bool) {
	if (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500) || attempt >= maxRetries {
		return 0, false
	}
	wait := firstWait << attempt
	if after := resp.Header.Get("Retry-After"); after != "" {
		if seconds, err := strconv.Atoi(strings.TrimSpace(after)); err == nil && seconds >= 0 {
			wait = time.Duration(seconds) * time.Second
		} else if at, err := http.ParseTime(after); err == nil {
			wait = max(at.Sub(now), 0)
		}
	}
	if wait > maxWait {
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		return 0, false
	}
	return wait, true
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
