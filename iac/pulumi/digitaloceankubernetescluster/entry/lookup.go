package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// lookup finds the account's clusters of the manifest's clusterName in its region: DigitalOcean
// lists them account-wide.
func lookup(ctx context.Context, in proto.Message, _ kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.DigitalOceanKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region, name := spec.GetRegion(), spec.GetClusterName()
	search := kinds.Search{Cloud: "DigitalOcean", NoToken: digitaloceanprovider.ErrNoToken, Type: "cluster", Name: name, In: region, Where: "region " + region}
	return search.Look(func() (ids []string, err error) {
		named, err := digitaloceanprovider.ClustersNamed(ctx, input.GetProviderConfig(), name)
		for _, c := range named {
			if c.Region == region {
				ids = append(ids, c.ID)
			}
		}
		return ids, err
	})
}
