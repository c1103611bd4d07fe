// Package digitalocean is what DigitalOcean is (cloudfacts.Cloud): its ID, environment, provider
// config, kinds, token and tag rules, provider plugin and API limits. What DigitalOcean does (its
// API's clients, lists, pool moves) is its driver's, pkg/cloud/digitalocean, which embeds Facts.
package digitalocean

import (
	"regexp"

	"github.com/pkg/errors"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// ID names DigitalOcean.
const ID cloudfacts.ID = "digitalocean"

// Facts are what DigitalOcean is.
type Facts struct{}

var _ cloudfacts.Cloud = Facts{}

// ID is DigitalOcean's.
func (Facts) ID() cloudfacts.ID { return ID }

// DefaultPoolTag is the tag by which DigitalOcean's provider reads a cluster's default node pool
// (terraform-provider-digitalocean, resource_kubernetes_node_pool.go,
// DigitaloceanKubernetesDefaultNodePoolTag). The provider imports a cluster only when exactly one
// of its pools carries it (resourceDigitalOceanKubernetesClusterImportState in v2.75.0,
// digitalocean/kubernetes/resource_kubernetes_cluster.go): with one pool it adds the tag itself,
// with several untagged pools it refuses. Clusters made by doctl or the control panel carry no
// such tag, so adopting one with extra pools tags the pool the manifest names as its default pool
// first (the driver's EnsureDefaultPool; a tag changes nothing else on a pool). The fleet scan
// reads the tagged pool as the cluster's nodePool, and a rotated default pool must carry it for the
// cluster to keep its id (the kinds' effects give it to pkg/change/rotation).
const DefaultPoolTag = "terraform:default-node-pool"

// The environment variables an empty provider config's token and API URL fall back to, as the
// DigitalOcean provider plugin's own do.
const (
	TokenEnv  = "DIGITALOCEAN_TOKEN"
	APIURLEnv = "DIGITALOCEAN_API_URL"
)

// Env is DigitalOcean's environment: its name, TokenEnv and APIURLEnv, and its own API (the
// account answers a probe cheaply). Resolve on it decides where a DigitalOcean token may go.
var Env = cloudfacts.Env{Name: "DigitalOcean", TokenEnv: TokenEnv, URLEnv: APIURLEnv,
	API: "https://api.digitalocean.com", Probe: "/v2/account"}

// Env is DigitalOcean's environment: DIGITALOCEAN_TOKEN, DIGITALOCEAN_API_URL and
// api.digitalocean.com.
func (Facts) Env() cloudfacts.Env { return Env }

// ProviderConfig is the DigitalOcean kinds' provider config.
func (Facts) ProviderConfig() cloudfacts.ProviderConfig {
	return cloudfacts.ProviderConfig{Message: (&digitaloceanv1.DigitalOceanProviderConfig{}).ProtoReflect().Descriptor().FullName(),
		Token: digitaloceanv1.DigitalOceanProviderConfigFieldApiToken, URL: digitaloceanv1.DigitalOceanProviderConfigFieldApiUrl}
}

// PerPage is DigitalOcean's largest page: the fewer pages, the fewer requests against the
// account's rate limit.
const PerPage = 200

// RequestsPerMinute is DigitalOcean's API rate limit: 250 requests a minute per token (and 5,000
// an hour), as its API reference says under "Rate Limit" (docs.digitalocean.com/reference/api).
// The provider plugins' requests count against it as much as clusterplane's own.
const RequestsPerMinute = 250

// ImportPerPage is the page the DigitalOcean provider plugin's import lists clusters at: godo's
// default, 20 (terraform-provider-digitalocean v2.75.0
// digitalocean/kubernetes/resource_kubernetes_node_pool.go:156-189).
const ImportPerPage = 20

// Requests are DigitalOcean's limit and pages: clusterplane's lists and the modules' look-ups
// read PerPage clusters a request, the provider's import ImportPerPage.
func (Facts) Requests() cloudfacts.Requests {
	return cloudfacts.Requests{PerMinute: RequestsPerMinute, ClustersPerPage: PerPage, ImportClustersPerPage: ImportPerPage}
}

// Node labels DigitalOcean (DOKS) puts on every node of a pool: its pool's name, its pool's id
// and its own id. The cluster autoscaler's DigitalOcean provider finds nodes by the
// doks.digitalocean.com namespace (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/digitalocean/digitalocean_node_group.go, nodeIDLabel), and
// DigitalOcean's documentation tells users to select a pool with doks.digitalocean.com/node-pool.
const (
	PoolLabel   = "doks.digitalocean.com/node-pool"
	PoolIDLabel = "doks.digitalocean.com/node-pool-id"
	NodeIDLabel = "doks.digitalocean.com/node-id"
)

// PoolSelector selects a pool's nodes by its name (doks.digitalocean.com/node-pool=<name>): pool
// names are unique within a cluster (the API refuses a second pool of the same name), so the name
// selects exactly one pool.
func (Facts) PoolSelector(name, _ string) (map[string]string, error) {
	if name == "" {
		return nil, errors.New("a DigitalOcean pool's nodes are found by the pool's name, and it has none")
	}
	return map[string]string{PoolLabel: name}, nil
}

// ProviderSDK is the Go SDK module of the Pulumi provider plugin the kinds' programs use.
func (Facts) ProviderSDK() string { return "github.com/pulumi/pulumi-digitalocean/sdk/v4" }

// PluginEnv turns the DigitalOcean plugin's own retries off (DIGITALOCEAN_HTTP_RETRY_MAX=0): its
// HTTP client (godo over go-retryablehttp, terraform-provider-digitalocean's config.go,
// http_retry_max 4 by default) asks again after any 5xx, a POST included, so a create the cloud
// carried out but answered 500 for made up to five clusters of one name. pkg/deploy asks again
// instead, after looking that the failed attempt left nothing behind.
func (Facts) PluginEnv() map[string]string {
	return map[string]string{"DIGITALOCEAN_HTTP_RETRY_MAX": "0"}
}

// Credentials are the other variables the provider reads a credential from (terraform-provider-digitalocean v2.75.0).
func (Facts) Credentials() []string {
	return []string{"DIGITALOCEAN_ACCESS_TOKEN", "SPACES_ACCESS_KEY_ID", "SPACES_SECRET_ACCESS_KEY"}
}

// ProviderSDKVersion is go.mod's version of ProviderSDK.
func (Facts) ProviderSDKVersion() string { return "4.57.0" }

// The kinds as manifests write them.
const (
	ClusterKind = "DigitalOceanKubernetesCluster"
	PoolKind    = "DigitalOceanKubernetesNodePool"
	APIVersion  = "digitalocean.clusterplane.dev/v1"
)

// Kinds are DigitalOcean's kinds.
func (Facts) Kinds() cloudfacts.Kinds {
	return cloudfacts.Kinds{Cluster: ClusterKind, Pool: PoolKind, APIVersion: APIVersion, PoolRegion: false}
}

// tokenShape is the published shape of DigitalOcean's API tokens, the one secret scanners look
// for: dop_v1_ (personal access token), doo_v1_ (OAuth token) or dor_v1_ (OAuth refresh token),
// then 64 hexadecimal digits.
var tokenShape = regexp.MustCompile(`do[opr]_v1_[0-9a-f]{64}`)

// TokenShape is the shape of DigitalOcean's API tokens.
func (Facts) TokenShape() *regexp.Regexp { return tokenShape }

// TagsIgnoreCase: the DigitalOcean provider keeps tags in a set that ignores case
// (terraform-provider-digitalocean's tag.TagsSchema hashes with util.HashStringIgnoreCase).
func (Facts) TagsIgnoreCase() bool { return true }

// Distribution: DigitalOcean offers one distribution, its own.
func (Facts) Distribution(string) string { return "" }

// PluginResources: DigitalOcean's provider serves every resource its kinds register.
func (Facts) PluginResources() []cloudfacts.PluginResource { return nil }
