// Package cloudfacts is what a cloud is, apart from what it does: its ID, its environment
// variables and API, its provider config's fields, its token's shape, its tags' rule, its kinds,
// its provider plugin, its API's limits and the repository's tables of what it offers (prices,
// regions, versions; tables.go). Each cloud's facts are a package of their own
// (pkg/cloudfacts/<cloud>), listed once in pkg/cloudfacts/cloudlist; each cloud's driver
// (pkg/cloud/<cloud>) embeds its facts and adds what the cloud does: its clients, lists and pool
// moves.
//
// Nothing here links a cloud's client or net/http, so that the packages that read manifests and
// compute changes (pkg/manifest, pkg/change) and the redactor can ask what a cloud is without
// linking how it is reached.
package cloudfacts

import (
	"regexp"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// ID names a cloud as clusterplane writes it in lower case: its kinds' projects begin with it,
// and prices, regions and catalogues are keyed by it.
type ID string

// Cloud is what one cloud is, as clusterplane asks it.
type Cloud interface {
	// ID names the cloud.
	ID() ID
	// Env is the provider's environment: the cloud's name as messages say it, the variables its
	// token and API URL fall back to, and its own API.
	Env() Env
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
	// ProviderSDKVersion is the version of ProviderSDK go.mod pins, for a binary built without
	// module information: its provider plugin's version.
	ProviderSDKVersion() string
	// PluginEnv is the environment the cloud's provider plugin runs in, besides clusterplane's
	// own; nil when it needs none.
	PluginEnv() map[string]string
	// Kinds names the cloud's kinds as manifests write them.
	Kinds() Kinds
	// Credentials are the environment variables besides Env's token that the cloud's provider
	// plugin reads a credential from: the sandbox refuses to start while one is set.
	Credentials() []string
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
	// PluginResources are the custom resources clusterplane's plugin manages for the cloud's
	// kinds, as its schema describes them (plugin.go); none when its provider serves them all.
	PluginResources() []PluginResource
	// Prices are the cloud's monthly prices as the repository's table holds them (its source and
	// date said): what an offline plan is priced with, and what a failing API falls back to.
	Prices() Prices
	// Regions are the regions the repository's table says the cloud offers, in the order its own
	// list gives them.
	Regions() []Region
	// Versions are the Kubernetes versions the repository's table says the cloud offers a new
	// cluster of distribution ("" for every distribution), oldest first.
	Versions(distribution string) []string
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
