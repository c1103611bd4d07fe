package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// lookup finds the region's clusters of the manifest's clusterName.
func lookup(ctx context.Context, in proto.Message, _ kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.CivoKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region := spec.GetRegion()
	ids, err := civoprovider.ClusterIDsNamed(ctx, input.GetProviderConfig(), region, spec.GetClusterName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		return kinds.NoToken("Civo"), nil
	}
	if err != nil {
		return kinds.Found{}, errors.Wrapf(err, "look for a cluster %s in %s before creating one", spec.GetClusterName(), region)
	}
	var found kinds.Found
	for _, id := range ids {
		found.Live = append(found.Live, kinds.Live{Type: "cluster", Name: spec.GetClusterName(), Where: "region " + region, ID: id})
	}
	return found, nil
}
