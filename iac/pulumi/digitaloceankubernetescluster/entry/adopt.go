package entry

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// readyImport readies a cluster of several pools for its import: the provider imports it only
// when one pool carries terraform:default-node-pool, which clusters made by doctl or the console
// lack (see DefaultPoolTag in pkg/cloudfacts/digitalocean). The pool the manifest names as its default pool gets that tag, a
// tag-only change, and nothing else is touched; a cluster the provider imports as it is asks
// nothing.
func readyImport(ctx context.Context, in proto.Message, clusterID string) (kinds.Readied, error) {
	input := in.(*v1.DigitalOceanKubernetesClusterStackInput)
	pc := input.GetProviderConfig()
	token, url, err := digitalocean.Env.Resolve(pc.GetApiToken(), pc.GetApiUrl())
	if err != nil {
		return kinds.Readied{}, err
	}
	if token == "" {
		// The import fails then with the provider's own words about the token.
		return kinds.Readied{}, nil
	}
	pool := input.GetTarget().GetSpec().GetDefaultNodePool().GetNodePoolName()
	if pool == "" {
		// The name the module gives the pool when the manifest gives none.
		pool = module.DefaultNodePoolName
	}
	res, err := digitalocean.New(url, token, digitalocean.Options{}).EnsureDefaultPool(ctx, clusterID, pool)
	if err != nil {
		return kinds.Readied{}, errors.Wrap(err, "tag the cluster's default pool for the import")
	}
	if res.PoolID == "" {
		return kinds.Readied{}, nil
	}
	return kinds.Readied{Said: "pool " + res.PoolID + " was tagged " + dofacts.DefaultPoolTag + ", which the provider imports the default pool by",
		Thing: "pool", Change: "tagged " + dofacts.DefaultPoolTag}, nil
}
