package cost

import "regexp"

// The regions tables in the repository (each cloud's driver holds its own, pkg/cloud/<cloud>):
// what validate checks a manifest's region against offline, beside the versions and the sizes,
// and what `clusterplane regions` lists. A manifest may name any region spelled as a region is
// (RegionName): the clouds open regions without asking us, so a region missing from a table is
// only a warning; online (a token in the environment) preview and up check the cloud's own list
// instead, which decides.
//
// Update a driver's regions and RegionsDate together; a warning names the date, so an old table
// is seen.

// RegionsDate is the day the tables' regions were read.
const RegionsDate = "2026-11-23"

// RegionsSource names the tables in a warning, by the package that holds their date (the
// output it appears in is unchanged since the tables moved into the drivers).
const RegionsSource = "clusterplane's regions table (pkg/change/cost)"

// Region is one region a cloud offers: its name as manifests write it (a slug or a code), and
// where it is.
type Region struct {
	Name  string
	Where string
}

// RegionNames are the names of regions, in their order.
func RegionNames(regions []Region) []string {
	var out []string
	for _, r := range regions {
		out = append(out, r.Name)
	}
	return out
}

// regionName is how every region of the clouds is spelled: a few lower-case letters, then a
// digit or two. The same pattern is the region fields' rule in the API (spec.proto); discover
// writes no manifest with a region the rule would refuse.
var regionName = regexp.MustCompile(`^[a-z]{2,5}[0-9]{1,2}$`)

// RegionName tells whether name is spelled as a region is, so that a manifest may name it.
func RegionName(name string) bool { return regionName.MatchString(name) }
