package entry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
)

// Every row of the kind's effects table has an OLD/NEW pair in testdata/diff-pairs.yaml, which
// diff must tell right.
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), diffpairs.Read(t, "../testdata/diff-pairs.yaml"))
}
