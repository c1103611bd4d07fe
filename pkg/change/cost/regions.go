package cost

import (
	"regexp"
	"slices"
)

// The regions table in the repository: what validate checks a manifest's region against offline,
// beside the versions and the sizes, and what `clusterplane regions` lists. A manifest may name
// any region spelled as a region is (RegionName): the clouds open regions without asking us, so a
// region missing here is only a warning; online (a token in the environment) preview and up check
// the cloud's own list instead, which decides.
//
// DigitalOcean: the region slugs GET /v2/kubernetes/options lists (`doctl kubernetes options
// regions`). Civo: the region codes GET /v2/regions lists (`civo region ls`). Both as this
// repository's examples, tests and loopback clouds (pkg/loopback/fakedo, pkg/loopback/fakecivo) record
// them on RegionsDate.
//
// Update the regions and RegionsDate together; a warning names the date, so an old table is seen.

// RegionsDate is the day the table's regions were read.
const RegionsDate = "2026-11-23"

// RegionsSource names the table in a warning.
const RegionsSource = "clusterplane's regions table (pkg/change/cost)"

// Region is one region a cloud offers: its slug (DigitalOcean) or code (Civo), as manifests write
// it, and where it is.
type Region struct {
	Name  string
	Where string
}

// regions are the regions each cloud offers, in the order its own list gives them.
var regions = map[string][]Region{
	DigitalOcean: {
		{"nyc1", "New York 1"}, {"nyc3", "New York 3"}, {"sfo2", "San Francisco 2"}, {"sfo3", "San Francisco 3"},
		{"ams3", "Amsterdam 3"}, {"sgp1", "Singapore 1"}, {"lon1", "London 1"}, {"fra1", "Frankfurt 1"},
		{"tor1", "Toronto 1"}, {"blr1", "Bangalore 1"}, {"syd1", "Sydney 1"}, {"atl1", "Atlanta 1"},
	},
	Civo: {
		{"lon1", "London, United Kingdom"}, {"fra1", "Frankfurt, Germany"}, {"nyc1", "New York, United States"},
		{"phx1", "Phoenix, United States"}, {"mum1", "Mumbai, India"},
	},
}

// Regions are the regions the table says cloud offers; nil for a cloud it does not know.
func Regions(cloud string) []Region { return slices.Clone(regions[cloud]) }

// RegionNames are the names of Regions(cloud).
func RegionNames(cloud string) []string {
	var out []string
	for _, r := range regions[cloud] {
		out = append(out, r.Name)
	}
	return out
}

// regionName is how every region of both clouds is spelled: a few lower-case letters, then a
// digit or two. The same pattern is the region fields' rule in the API (spec.proto); discover
// writes no manifest with a region the rule would refuse.
var regionName = regexp.MustCompile(`^[a-z]{2,5}[0-9]{1,2}$`)

// RegionName tells whether name is spelled as a region is, so that a manifest may name it.
func RegionName(name string) bool { return regionName.MatchString(name) }
