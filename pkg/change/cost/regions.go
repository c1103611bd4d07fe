package cost

import "regexp"

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
