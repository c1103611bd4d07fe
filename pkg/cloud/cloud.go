// Package cloud is what clusterplane asks of a cloud, written once: ID names a cloud and Driver
// holds the questions. Each cloud's own package (pkg/cloud/<cloud>) implements Driver, and the
// list of drivers exists once (pkg/cloud/clouds), so that code outside a driver asks the driver
// rather than branching on a cloud's name: a third cloud then joins by its driver, and a cloud
// no driver knows is an error naming it, never another cloud's path.
package cloud

import (
	"context"
	"regexp"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ID names a cloud as clusterplane writes it in lower case: its kinds' projects begin with it,
// and prices, regions and catalogues are keyed by it.
type ID string

// Driver is one cloud as clusterplane itself asks it.
type Driver interface {
	// ID names the cloud.
	ID() ID
	// Env is the provider's environment: the cloud's name as messages say it, the variables its
	// token and API URL fall back to, and its own API.
	Env() cloudapi.Cloud
	// ProviderConfig names the provider-config message of the cloud's stack inputs and the JSON
	// names of its token and API URL fields.
	ProviderConfig() ProviderConfig
	// Requests is what the cloud's API costs: its limit, and how many clusters one list
	// request returns (an estimate counts the pages an account's clusters take).
	Requests() Requests
	// PoolSelector is the node labels the cloud puts on every node of the pool named name with
	// id, by which a drain finds the pool's nodes; an error when the pool lacks what the cloud
	// labels by (never a selector of the whole cluster).
	PoolSelector(name, id string) (map[string]string, error)
	// ProviderSDK is the Go SDK module of the cloud's Pulumi provider plugin, whose plugin name
	// is the cloud's ID: the plugin's version is its SDK's.
	ProviderSDK() string
	// PluginEnv is the environment the cloud's provider plugin runs in, besides clusterplane's
	// own; nil when it needs none.
	PluginEnv() map[string]string
	// Discover reads an account's clusters and pools as their manifests write them (discovery.go;
	// `clusterplane discover`).
	Discover(ctx context.Context, a Account) (Found, error)
	// Kinds names the cloud's kinds as manifests write them.
	Kinds() Kinds
	// Credentials are the environment variables besides Env's token that the cloud's provider
	// plugin reads a credential from: the sandbox refuses to start while one is set.
	Credentials() []string
	// ProviderSDKVersion is the version of ProviderSDK go.mod pins, for a binary built without
	// module information: its provider plugin's version.
	ProviderSDKVersion() string
	// TokenShape is the published shape of the cloud's API tokens, the one secret scanners look
	// for, by which a token written outside a token's field is refused; nil when it has none.
	TokenShape() *regexp.Regexp
	// TagsIgnoreCase tells whether the cloud's provider keeps a resource's tags in a set that
	// ignores case, so that two tags differing only in case would be one tag.
	TagsIgnoreCase() bool
	// Distribution is the Kubernetes distribution a cluster of clusterType (its spec's
	// cluster_type, by the enum value's name; "" when it has none) runs, by which the cloud's
	// catalogue tells its versions apart; "" when the cloud offers one distribution.
	Distribution(clusterType string) string
	// Prices are the cloud's monthly prices as the repository's table holds them (its source and
	// date said): what an offline plan is priced with, and what a failing API falls back to.
	Prices() cost.Prices
	// LivePrices reads the cloud's prices from its API at base (the cloud's own when "") with
	// token; ok is false, and nothing asked, when the API lists no prices (the table is then all
	// there is).
	LivePrices(ctx context.Context, base, token string) (p cost.Prices, ok bool, err error)
	// Regions are the regions the repository's table says the cloud offers, in the order its own
	// list gives them.
	Regions() []cost.Region
	// Versions are the Kubernetes versions the repository's table says the cloud offers a new
	// cluster of distribution ("" for every distribution), oldest first.
	Versions(distribution string) []string
	// Catalogue reads what the cloud's API at base (the cloud's own when "") offers new clusters
	// now, with token: its Kubernetes versions, and its sizes and regions where it lists them.
	Catalogue(ctx context.Context, base, token string) (cost.Catalogue, error)
	// Upgrades is the cloud's API at base with token as an upgrade plan asks it about one cluster
	// in region: finding it, what it may upgrade to, the cloud's own checks, and its objects.
	Upgrades(base, token, region string) upgrade.Cloud
	// PluginResources are the custom resources clusterplane's plugin manages for the cloud's
	// kinds, as its schema describes them (plugin.go); none when its provider serves them all.
	PluginResources() []PluginResource
	// ScanReaders are the Pulumi resource types the fleet scan reads from the cloud's lists, by
	// type token, each with the properties it compares (listing.go).
	ScanReaders() map[string]ScanReader
	// ScanList lists the account's clusters (and what else its readers look up) at base with
	// token, in region for a cloud whose readers name one, through a client with opts, as the
	// provider's Read would read each; the client counts the requests made. A list that failed
	// part-way holds what was read before the error.
	ScanList(ctx context.Context, base, token, region string, opts cloudapi.Options) (Listing, Counted, error)
}

// Kinds are a cloud's kinds as manifests write them: its cluster's and its node pool's kind, and
// their apiVersion.
type Kinds struct {
	Cluster, Pool, APIVersion string
	// PoolRegion says a pool's manifest names its cluster's region (the cloud's API is per
	// region); otherwise a pool is found through its cluster alone.
	PoolRegion bool
}

// Requests is what a cloud's API allows a token and how much one list request reads.
type Requests struct {
	// PerMinute is the cloud's limit of requests a minute per token; 0 when it states none.
	PerMinute int
	// ClustersPerPage is how many clusters clusterplane's own list (and a module's look-up)
	// reads a request; ImportClustersPerPage how many the provider plugin's import reads, at its
	// client's default page. 0 when the cloud's estimates count no pages.
	ClustersPerPage, ImportClustersPerPage int
}

// Pages is how many requests a list of n things takes at perPage a page: one when empty, as an
// API answers an empty list in one page.
func Pages(n, perPage int) int { return max(1, (n+perPage-1)/perPage) }

// ProviderConfig is a cloud's provider-config message: its full name and the JSON names of its
// token and API URL fields.
type ProviderConfig struct {
	Message    protoreflect.FullName
	Token, URL string
}
