package kind

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanprovider "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// lookup finds the account's clusters of the manifest's clusterName in its region: DigitalOcean
// lists them account-wide.
func lookup(ctx context.Context, in proto.Message, _ kinds.Resolve) (kinds.Found, error) {
	input := in.(*v1.DigitalOceanKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region := spec.GetRegion()
	named, err := digitaloceanprovider.ClustersNamed(ctx, input.GetProviderConfig(), spec.GetClusterName())
	if errors.Is(err, digitaloceanprovider.ErrNoToken) {
		return kinds.NoToken("DigitalOcean"), nil
	}
	if err != nil {
		return kinds.Found{}, errors.Wrapf(err, "look for a cluster %s in %s before creating one", spec.GetClusterName(), region)
	}
	var found kinds.Found
	for _, c := range named {
		if c.Region == region {
			found.Live = append(found.Live, kinds.Live{Type: "cluster", Name: c.Name, Where: "region " + region, ID: c.ID})
		}
	}
	return found, nil
}
