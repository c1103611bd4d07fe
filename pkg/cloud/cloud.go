// Package cloud is what clusterplane asks a cloud to do, written once: Driver holds the questions,
// beside what the cloud is (pkg/cloudfacts). Each cloud's own package (pkg/cloud/<cloud>)
// implements Driver, embedding its facts, and the list of drivers exists once
// (pkg/cloud/clouds), so that code outside a driver asks the driver rather than branching on a
// cloud's name: a third cloud then joins by its driver, and a cloud no driver knows is an error
// naming it, never another cloud's path.
package cloud

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// Driver is one cloud as clusterplane itself asks it: what the cloud is (its facts,
// pkg/cloudfacts/<cloud>, which each driver embeds) and what it does.
type Driver interface {
	cloudfacts.Cloud
	// Discover reads an account's clusters and pools as their manifests write them (discovery.go;
	// `clusterplane discover`).
	Discover(ctx context.Context, a Account) (Found, error)
	// LivePrices reads the cloud's prices from its API at base (the cloud's own when "") with
	// token; ok is false, and nothing asked, when the API lists no prices (the table, its facts'
	// Prices, is then all there is).
	LivePrices(ctx context.Context, base, token string) (p cost.Prices, ok bool, err error)
	// Catalogue reads what the cloud's API at base (the cloud's own when "") offers new clusters
	// now, with token: its Kubernetes versions, and its sizes and regions where it lists them.
	Catalogue(ctx context.Context, base, token string) (cost.Catalogue, error)
	// Upgrades is the cloud's API at base with token as an upgrade plan asks it about one cluster
	// in region: finding it, what it may upgrade to, the cloud's own checks, and its objects.
	Upgrades(base, token, region string) upgrade.Cloud
	// ScanReaders are the Pulumi resource types the fleet scan reads from the cloud's lists, by
	// type token, each with the properties it compares (listing.go).
	ScanReaders() map[string]ScanReader
	// ScanList lists the account's clusters (and what else its readers look up) at base with
	// token, in region for a cloud whose readers name one, through a client with opts, as the
	// provider's Read would read each; the client counts the requests made. A list that failed
	// part-way holds what was read before the error.
	ScanList(ctx context.Context, base, token, region string, opts cloudapi.Options) (Listing, Counted, error)
	// Allowance asks the cloud's API at base with token, in one request, what its account has
	// left of its requests an hour; ok is false, and nothing asked, for a cloud whose answers do
	// not say (cloudapi.Allowance).
	Allowance(ctx context.Context, base, token string) (a cloudapi.Allowance, ok bool, err error)
}

// The facts' types, as drivers and their callers name them.
type (
	// ID names a cloud (cloudfacts.ID).
	ID = cloudfacts.ID
	// Kinds are a cloud's kinds (cloudfacts.Kinds).
	Kinds = cloudfacts.Kinds
	// Requests is what a cloud's API allows (cloudfacts.Requests).
	Requests = cloudfacts.Requests
	// ProviderConfig is a cloud's provider-config message (cloudfacts.ProviderConfig).
	ProviderConfig = cloudfacts.ProviderConfig
)

// Pages is how many requests a list of n things takes at perPage a page (cloudfacts.Pages).
func Pages(n, perPage int) int { return cloudfacts.Pages(n, perPage) }
