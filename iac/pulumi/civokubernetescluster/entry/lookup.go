package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/civoeffects"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// lookup finds the region's clusters of the manifest's clusterName.
var lookup = kinds.ClusterLookup(func(ctx context.Context, input *v1.CivoKubernetesClusterStackInput, region, name string) ([]kinds.Listed, error) {
	named, err := civoprovider.ClustersNamed(ctx, input.GetProviderConfig(), region, name)
	var out []kinds.Listed
	for _, c := range named {
		out = append(out, kinds.Listed{ID: c.ID, Tags: c.Tags})
	}
	return out, err
})

// importsWith is, with the cluster adopt imports, the firewall the module made for it: the one
// the cluster sits behind, named as the cluster (module.firewall names it so), unless the
// manifest names the cluster's firewall itself, in which case the module makes none.
func importsWith(ctx context.Context, in proto.Message, id string) (map[string]string, error) {
	input := in.(*v1.CivoKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	if spec.GetFirewall() != nil {
		return nil, nil
	}
	firewall, err := civoprovider.FirewallNamed(ctx, input.GetProviderConfig(), spec.GetRegion(), id, spec.GetClusterName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		// The import fails then with the provider's own words about the token.
		return nil, nil
	}
	if err != nil {
		return nil, errors.Wrap(err, "find the firewall the module made for the cluster")
	}
	if firewall == "" {
		return nil, nil
	}
	return map[string]string{civoeffects.CivoTypes[effects.Firewall]: firewall}, nil
}
