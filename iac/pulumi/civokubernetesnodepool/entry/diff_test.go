package entry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
)

// Every row of the kind's effects table has an OLD/NEW pair in testdata/diff-pairs.yaml, which
// diff must tell right.
// Promise: effect-civo-pool-metadata-env
// Promise: effect-civo-pool-metadata-name
// Promise: effect-civo-pool-spec-cluster
// Promise: effect-civo-pool-spec-nodepoolname
// Promise: effect-civo-pool-spec-publicipnodepool
// Promise: effect-civo-pool-spec-region
// Promise: effect-civo-pool-spec-size
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), diffpairs.Read(t, "../testdata/diff-pairs.yaml"))
}
