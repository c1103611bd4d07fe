package cost

import "github.com/clusterplane/clusterplane/pkg/cloudfacts"

// The repository's tables of what each cloud offers (prices, regions, Kubernetes versions) are
// what the cloud is, held by its facts (pkg/cloudfacts/<cloud>); this package computes with them.
// Their types and dates are the facts', named here as the computations and their callers name
// them.

type (
	// Prices are one cloud's monthly prices and where they come from (cloudfacts.Prices).
	Prices = cloudfacts.Prices
	// Region is one region a cloud offers (cloudfacts.Region).
	Region = cloudfacts.Region
)

// The tables' days and names, as a report or a warning says them (cloudfacts).
const (
	TableDate      = cloudfacts.TableDate
	TableSource    = cloudfacts.TableSource
	RegionsDate    = cloudfacts.RegionsDate
	RegionsSource  = cloudfacts.RegionsSource
	VersionsDate   = cloudfacts.VersionsDate
	VersionsSource = cloudfacts.VersionsSource
)

// Unknown are the prices of a cloud no driver knows (cloudfacts.Unknown).
func Unknown(cloud string, why error) Prices { return cloudfacts.Unknown(cloud, why) }
