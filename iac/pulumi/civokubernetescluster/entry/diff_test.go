package entry_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
)

// Every row of the kind's effects table has an OLD/NEW pair in testdata/diff-pairs.yaml, which
// diff must tell right.
// Promise: effect-civo-cluster-metadata-env
// Promise: effect-civo-cluster-metadata-name
// Promise: effect-civo-cluster-spec-applications
// Promise: effect-civo-cluster-spec-clustertype
// Promise: effect-civo-cluster-spec-cni
// Promise: effect-civo-cluster-spec-defaultnodepool-labels
// Promise: effect-civo-cluster-spec-defaultnodepool-publicipnodepool
// Promise: effect-civo-cluster-spec-defaultnodepool-size
// Promise: effect-civo-cluster-spec-defaultnodepool-taints
// Promise: effect-civo-cluster-spec-kubernetesversion
// Promise: effect-civo-cluster-spec-network
// Promise: effect-civo-cluster-spec-region
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), diffpairs.Read(t, "../testdata/diff-pairs.yaml"))
}
