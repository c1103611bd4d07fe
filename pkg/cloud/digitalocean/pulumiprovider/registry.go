package pulumiprovider

import (
	"context"
	"time"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
	"github.com/pkg/errors"
)

// DefaultAPIURL is DigitalOcean's API when the provider config and the environment name none.
var DefaultAPIURL = digitalocean.Env.API

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
	api, err := client(cfg)
	if err != nil {
		return RegistryUnknown
	}
	found, err := api.HasRegistry(ctx)
	switch {
	case err != nil:
		return RegistryUnknown
	case found:
		return RegistryFound
	}
	return RegistryMissing
}

// ErrNoToken: neither the provider config nor DIGITALOCEAN_TOKEN has a token to ask with.
var ErrNoToken error = cloudapi.NoTokenError{Cloud: "DigitalOcean", Env: digitalocean.TokenEnv}

// endpoint is the token and API URL digitalocean.Env.Resolve lets clusterplane use for cfg,
// the cloud's own API when it names none; ErrNoToken without a token.
func endpoint(cfg *digitaloceanv1.DigitalOceanProviderConfig) (token, base string, err error) {
	token, base, err = digitalocean.Env.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
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

// client is DigitalOcean's API with the token and URL endpoint gives; the token never appears in
// an error. A 429 or a 5xx is asked again, after the Retry-After the API asks for (seconds or an
// HTTP date) or else a doubling backoff, at most maxRetries more times and each wait at most
// maxWait, and never past the look-up's context (registryTimeout): one busy moment of the API
// does not fail a preview, a long one leaves the refusal, naming its status, to the caller.
func client(cfg *digitaloceanv1.DigitalOceanProviderConfig) (*digitalocean.Client, error) {
	token, base, err := endpoint(cfg)
	if err != nil {
		return nil, err
	}
	return digitalocean.New(base, token, digitalocean.Options{
		Options: cloudapi.Options{
			// Each look-up's context bounds its requests; this bounds one of the longest look-up's.
			Timeout: 3 * registryTimeout,
			Retry:   cloudapi.Bounded(maxRetries, firstWait, maxWait),
		},
		MaxPages: maxPages,
	}), nil
}

// How client asks again.
const (
	maxRetries = 3
	maxWait    = 4 * time.Second
	firstWait  = 500 * time.Millisecond
)

// LiveVersion is the version slug of the cluster named name, "" when the account has none of that
// name (an error when one is listed without its version): LiveCluster's Version.
func LiveVersion(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, name string) (string, error) {
	live, err := LiveCluster(ctx, cfg, name)
	return live.Version, err
}

// Live is what DigitalOcean lists of a cluster: the version it runs ("" when the account has none
// of its name), and whether its default pool is gone: pools listed, each with its tags, and none
// tagged dofacts.DefaultPoolTag.
type Live struct {
	Version         string
	DefaultPoolGone bool
}

// LiveCluster is what DigitalOcean lists of the cluster named name, read from DigitalOcean's API
// page by page. The provider's own lookup (the getKubernetesCluster function) reads the first
// page of the account's clusters only, 20 by default (terraform-provider-digitalocean v2.75.0
// datasource_kubernetes_cluster.go, dataSourceDigitalOceanKubernetesClusterRead), so in an
// account of more clusters it would take a running cluster for a new one.
//
// When ctx carries what the up that just ran read (upread.Of), the version recorded there is
// the answer and nothing is asked (carriedVersion); that read holds no pool's tags, so it tells
// no default pool gone. When ctx carries a run (runlist.Of), the answer is from the run's one
// list of the account.
func LiveCluster(ctx context.Context, cfg *digitaloceanv1.DigitalOceanProviderConfig, name string) (Live, error) {
	if v, ok := carriedVersion(ctx, name); ok {
		return Live{Version: v}, nil
	}
	var live Live
	found := false
	err := eachCluster(ctx, cfg, registryTimeout, func(c digitalocean.Cluster) bool {
		if c.Name != name {
			return true
		}
		live, found = Live{Version: c.Version, DefaultPoolGone: c.DefaultPoolGone()}, true
		return false
	})
	if err != nil {
		return Live{}, err
	}
	if found && live.Version == "" {
		// DigitalOcean always gives a cluster's version: an answer without one says nothing of
		// it, and "" would read as "no such cluster", letting a manifest older than the version
		// the cluster runs through unchecked.
		return Live{}, errors.Errorf("DigitalOcean lists cluster %s without the version it runs", name)
	}
	return live, nil
}

// clusterType is the provider's cluster resource, as the stack's state names its type.
const clusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"

// carriedVersion is the version of the cluster named name as the stack's state holds it, when
// ctx carries that state as the up that just ran read it (upread.Carry), and whether it does.
// The deploy layer carries it only into the comparison it makes right after such an up, of the
// state that up wrote with the manifest: that up refreshed the cluster from DigitalOcean at the
// start of its own run, so the version in its state is the one the cluster ran moments ago, the
// same answer this list would give. A change DigitalOcean makes after that read (an automatic
// upgrade) is not seen here; the periodic drift check and the next up read the cloud again.
// A state without the cluster, or without its version, carries nothing: the list is read.
func carriedVersion(ctx context.Context, name string) (string, bool) {
	out, ok := upread.Of(ctx).Named(clusterType, name)
	if !ok {
		return "", false
	}
	v, _ := out["version"].(string)
	return v, v != ""
}

// maxPages bounds the lists of LiveVersion, ClustersNamed and PoolsNamed: 10,000 clusters at
// DigitalOcean's 200 a page, while a look-up must not hold a preview up for long.
const maxPages = 50
