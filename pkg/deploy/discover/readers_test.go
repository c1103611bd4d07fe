package discover

import (
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

// The tests write the manifests of a cluster built by hand: the drivers' models, named as the
// tests know them, and their clusters turned into manifests as Discover turns them.
type (
	doCluster   = digitalocean.Cluster
	doPool      = digitalocean.NodePool
	doSwitch    = digitalocean.Switch
	civoCluster = civo.Cluster
	civoPool    = civo.Pool
	taint       = cloudapi.Taint
)

const (
	civoClusterKind  = "CivoKubernetesCluster"
	doDefaultPoolTag = "terraform:default-node-pool"
)

// account is what Discover asks a driver for besides the token: the rules of names and tags.
var account = cloud.Account{Spellable: cost.RegionName, Managed: labels.Managed}

func doManifests(cl doCluster, name string) ([]manifest, error) {
	f, err := digitalocean.Discovered(cl, account)
	if err != nil {
		return nil, err
	}
	return manifests(digitalocean.Driver{}, f, name), nil
}

func civoManifests(cl civoCluster, region, name string) []manifest {
	return manifests(civo.Driver{}, civo.Discovered(cl, region, account), name)
}
