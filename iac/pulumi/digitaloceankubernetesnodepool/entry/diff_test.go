package entry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
)

// Every row of the kind's effects table has an OLD/NEW pair in testdata/diff-pairs.yaml, which
// diff must tell right.
// Promise: diff-effects
// Promise: diff-rotation-exits-0
// Promise: effect-digitalocean-pool-metadata-env
// Promise: effect-digitalocean-pool-metadata-name
// Promise: effect-digitalocean-pool-spec-cluster
// Promise: effect-digitalocean-pool-spec-labels
// Promise: effect-digitalocean-pool-spec-size
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), diffpairs.Read(t, "../testdata/diff-pairs.yaml"))
}
