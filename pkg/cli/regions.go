package cli

import (
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

// sameRegions refuses a valid manifest that is not in the region of the cluster it reads, where
// that cluster's manifest is among those validated (the same file or folder): offline, before
// Civo answers 404 at create (reference.RegionMismatches); a pool whose cluster's manifest is not
// gets a note that preview and up check it. manifests[i] is verdicts[i]'s, zero
// where a file was skipped or could not be read.
func sameRegions(verdicts []program.Verdict, manifests []Manifest) {
	var read []reference.Manifest
	var at []int
	for i, m := range manifests {
		if i >= len(verdicts) || !verdicts[i].Valid() || m.Program == nil {
			continue
		}
		input, err := m.Program.Parse(m.File)
		if err != nil {
			continue
		}
		read = append(read, reference.Manifest{File: m.File.Name, Data: m.File.Data, Input: input})
		at = append(at, i)
	}
	for j, problems := range reference.RegionMismatches(read) {
		v := &verdicts[at[j]]
		v.Err = &stackinput.Error{Problems: problems}
	}
	for _, j := range reference.RegionsUnchecked(read) {
		verdicts[at[j]].Note = RegionUncheckedNote
	}
}

// RegionUncheckedNote is what validate says of a valid pool whose cluster's manifest is not among
// those given: its region is checked where the cluster's can be read.
const RegionUncheckedNote = "its region is checked against its cluster's by preview and up: the cluster's manifest is not among the files given"
