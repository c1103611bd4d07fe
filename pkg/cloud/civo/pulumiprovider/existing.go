package pulumiprovider

import (
	"context"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// DefaultAPIURL is Civo's API when the provider config and the environment name none.
var DefaultAPIURL = civo.Env.API

// ErrNoToken: neither the provider config nor CIVO_TOKEN has a token to ask with.
var ErrNoToken error = cloudapi.NoTokenError{Cloud: "Civo", Env: civo.TokenEnv}

// credentials are the token and API URL cfg names, or the environment's, Civo's own API when
// neither names one; ErrNoToken when there is no token to ask with.
func credentials(cfg *civov1.CivoProviderConfig) (token, url string, err error) {
	token, url, err = civo.Env.Resolve(cfg.GetApiToken(), cfg.GetApiUrl())
	if err != nil {
		return "", "", err
	}
	if token == "" {
		return "", "", ErrNoToken
	}
	if url == "" {
		url = DefaultAPIURL
	}
	return token, url, nil
}

// ClustersNamed are region's clusters named name, read page by page (civogo's own list reads the
// first page only), from the run's one list of the region when ctx carries a run.
func ClustersNamed(ctx context.Context, cfg *civov1.CivoProviderConfig, region, name string) ([]civo.Cluster, error) {
	token, url, err := credentials(cfg)
	if err != nil {
		return nil, err
	}
	api := client(url, token)
	// The run's one list of the region where ctx carries a run (civo.RunClusters), else its own.
	clusters, ok, err := civo.RunClusters(ctx, url, token, region, func(ctx context.Context) ([]civo.Cluster, error) {
		return api.Clusters(ctx, region)
	})
	if !ok {
		clusters, err = api.Clusters(ctx, region)
	}
	if err != nil {
		return nil, err
	}
	var out []civo.Cluster
	for _, cl := range clusters {
		if cl.Name == name {
			out = append(out, cl)
		}
	}
	return out, nil
}

// maxClusterPages bounds ClustersNamed's list: 10,000 clusters in a region at Civo's 100 a page.
const maxClusterPages = 100

// PoolNamed tells whether the cluster clusterID has a pool named name (a Civo pool's name is its
// id within its cluster), and its node labels.
func PoolNamed(ctx context.Context, cfg *civov1.CivoProviderConfig, region, clusterID, name string) (found bool, labels map[string]string, err error) {
	token, url, err := credentials(cfg)
	if err != nil {
		return false, nil, err
	}
	api, err := pools.New(token, url, region, pools.WithRetry(cloudapi.Backoff(1, 0)))
	if err != nil {
		return false, nil, err
	}
	st, found, err := api.Get(ctx, clusterID, name)
	return found, st.Labels, err
}

// client is pkg/cloud/civo's client for the look-ups here, not civogo's: a request timeout,
// retries and cancellation. A 429 or a 5xx is sent three times in all, at once, as the pool client
// (pkg/cloud/civo/pools) did for these look-ups.
func client(url, token string) *civo.Client {
	return civo.New(url, token, civo.Options{
		Options:  cloudapi.Options{Timeout: pools.DefaultRequestTimeout, Retry: cloudapi.Backoff(2, 0)},
		MaxPages: maxClusterPages,
	})
}

// FirewallNamed is the id of the firewall region's cluster id sits behind when that firewall is
// named name, "" when it is named otherwise: the firewall a module made for the cluster carries
// the cluster's name, and an import of the cluster takes it too, since a create of it would
// duplicate its name (Civo refuses a second firewall of one name in a region).
func FirewallNamed(ctx context.Context, cfg *civov1.CivoProviderConfig, region, id, name string) (string, error) {
	token, url, err := credentials(cfg)
	if err != nil {
		return "", err
	}
	api := client(url, token)
	cl, err := api.Cluster(ctx, region, id)
	if err != nil || cl.FirewallID == "" {
		return "", err
	}
	firewalls, err := api.Firewalls(ctx, region)
	if err != nil {
		return "", err
	}
	for _, fw := range firewalls {
		if fw.ID == cl.FirewallID && fw.Name == name {
			return fw.ID, nil
		}
	}
	return "", nil
}
