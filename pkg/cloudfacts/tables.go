package cloudfacts

import "slices"

// The repository's tables of what each cloud offers (sizes' prices, regions, Kubernetes
// versions) are part of what the cloud is: each cloud's facts hold their own
// (pkg/cloudfacts/<cloud>, its tables.go), as values. They are what a plan is priced with offline,
// a cloud's only prices when its API lists none, and what validate checks a manifest against
// without asking the cloud; pkg/change/cost computes with them. The clouds open regions and add
// versions without asking us, so a value missing from a table is only a warning; online (a token
// in the environment) preview and up check the cloud's own list instead, which decides.
//
// Each table is read on one day, named here so that a report or a warning names it and an old
// table is seen: update a cloud's table and its date together. The sources' text names
// pkg/change/cost, where the tables' dates were first kept, so that reports read as before.

// TableDate is the day the price tables were read.
const TableDate = "2026-11-23"

// TableSource names the price tables in a report.
const TableSource = "clusterplane's price table (pkg/change/cost)"

// RegionsDate is the day the tables' regions were read.
const RegionsDate = "2026-11-23"

// RegionsSource names the regions tables in a warning.
const RegionsSource = "clusterplane's regions table (pkg/change/cost)"

// VersionsDate is the day the tables' versions were read.
const VersionsDate = "2026-11-23"

// VersionsSource names the versions tables in a warning.
const VersionsSource = "clusterplane's versions table (pkg/change/cost)"

// Prices are one cloud's monthly prices and where they come from.
type Prices struct {
	Cloud string
	// Sizes are the monthly prices by size; HAFee the high-availability control plane's.
	Sizes map[string]float64
	HAFee float64
	// Source and Date say where the sizes' prices come from and when they were read.
	Source, Date string
	// HAFeeSource says where HAFee comes from when Source does not list it (a sizes API that has
	// no such fee), with its date; "" when Source has it.
	HAFeeSource string
	// SizeSources say where a size's price comes from when not from Source (a size the sizes
	// API lists without a price, priced from the table), with its date.
	SizeSources map[string]string
	// Unpriced are sizes the cloud offers that Sizes does not price.
	Unpriced []string
}

// Offers tells whether the catalogue lists size, priced or not.
func (p Prices) Offers(size string) bool {
	_, ok := p.Sizes[size]
	return ok || slices.Contains(p.Unpriced, size)
}

// Unknown are the prices of a cloud no driver knows: nothing is priced (its sizes are then
// unknown, never free), and the Source says why. Another cloud's prices would read as its own.
func Unknown(cloud string, why error) Prices {
	return Prices{Cloud: cloud, Sizes: map[string]float64{}, Source: why.Error()}
}

// Region is one region a cloud offers: its name as manifests write it (a slug or a code), and
// where it is.
type Region struct {
	Name  string
	Where string
}
