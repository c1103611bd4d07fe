package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// lookup finds the region's clusters of the manifest's clusterName.
func lookup(ctx context.Context, in proto.Message, _ kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.CivoKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region, name := spec.GetRegion(), spec.GetClusterName()
	search := kinds.Search{Cloud: "Civo", NoToken: civoprovider.ErrNoToken, Type: "cluster", Name: name, In: region, Where: "region " + region}
	return search.Look(func() ([]string, error) {
		return civoprovider.ClusterIDsNamed(ctx, input.GetProviderConfig(), region, name)
	})
}
