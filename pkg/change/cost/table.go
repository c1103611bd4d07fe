package cost

// The repository's tables of what each cloud offers (prices, regions, Kubernetes versions) are
// held by the cloud's driver (pkg/cloud/<cloud>, its offer.go), which hands them in as values:
// what a plan is priced with offline, a cloud's only prices when its API lists none, and what
// validate checks a manifest against without asking the cloud. The tables are read on one day
// each, named here so that a report or a warning names it and an old table is seen.
//
// Update a driver's table and its date here together.

// TableDate is the day the price tables were read.
const TableDate = "2026-11-23"

// TableSource names the price tables in a report, by the package that holds their date (the
// output it appears in is unchanged since the tables moved into the drivers).
const TableSource = "clusterplane's price table (pkg/change/cost)"
