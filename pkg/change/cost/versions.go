package cost

// The Kubernetes versions tables in the repository (each cloud's driver holds its own,
// pkg/cloud/<cloud>): what validate checks a manifest's kubernetesVersion against offline, beside
// the sizes of the price table. The clouds add and drop versions every few weeks, so a version
// missing from a table is only a warning; online (a token in the environment) preview and up
// check the cloud's own list instead, which decides.
//
// Update a driver's versions and VersionsDate together; a warning names the date, so an old table
// is seen.

// VersionsDate is the day the tables' versions were read.
const VersionsDate = "2026-11-23"

// VersionsSource names the tables in a warning, by the package that holds their date (the
// output it appears in is unchanged since the tables moved into the drivers).
const VersionsSource = "clusterplane's versions table (pkg/change/cost)"
