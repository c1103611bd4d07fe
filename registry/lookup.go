package registry

import (
	"context"

	civoclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/provider/civoprovider"
	"github.com/clusterplane/clusterplane/pkg/provider/digitaloceanprovider"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// The output a pool's valueFrom cluster reads by default (the pool modules' ClusterIDOutput).
const clusterIDOutput = "cluster_id"

// What a look-up says when it did not look.
const (
	noDigitalOceanToken = "no DigitalOcean API token to look with"
	noCivoToken         = "no Civo API token to look with"
	noClusterYet        = "its cluster's id is not known yet (the referenced stack has no cluster_id output)"
)

// lookups are the kinds' look-ups of what a create would duplicate, by kind: each asks the cloud
// with the token and API URL the module's provider would use.
var lookups = map[string]deploy.Lookup{
	"DigitalOceanKubernetesCluster":  doClusters,
	"DigitalOceanKubernetesNodePool": doPools,
	"CivoKubernetesCluster":          civoClusters,
	"CivoKubernetesNodePool":         civoPools,
}

// doClusters are the account's clusters of the manifest's clusterName in its region: DigitalOcean
// lists them account-wide.
func doClusters(ctx context.Context, in proto.Message, _ deploy.Resolve) (deploy.Found, error) {
	input := in.(*doclusterv1.DigitalOceanKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region := spec.GetRegion().String()
	named, err := digitaloceanprovider.ClustersNamed(ctx, input.GetProviderConfig(), spec.GetClusterName())
	if errors.Is(err, digitaloceanprovider.ErrNoToken) {
		return deploy.Found{Unchecked: noDigitalOceanToken}, nil
	}
	if err != nil {
		return deploy.Found{}, errors.Wrapf(err, "look for a cluster %s in %s before creating one", spec.GetClusterName(), region)
	}
	var found deploy.Found
	for _, c := range named {
		if c.Region == region {
			found.Live = append(found.Live, deploy.Live{Type: "cluster", Name: c.Name, Where: "region " + region, ID: c.ID})
		}
	}
	return found, nil
}

// doPools are the pools of the manifest's nodePoolName in its cluster.
func doPools(ctx context.Context, in proto.Message, resolve deploy.Resolve) (deploy.Found, error) {
	input := in.(*dopoolv1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), clusterIDOutput)
	if err != nil || cluster == "" {
		return deploy.Found{Unchecked: noClusterYet}, err
	}
	named, err := digitaloceanprovider.PoolsNamed(ctx, input.GetProviderConfig(), cluster, spec.GetNodePoolName())
	if errors.Is(err, digitaloceanprovider.ErrNoToken) {
		return deploy.Found{Unchecked: noDigitalOceanToken}, nil
	}
	if err != nil {
		return deploy.Found{}, errors.Wrapf(err, "look for a node pool %s in cluster %s before creating one", spec.GetNodePoolName(), cluster)
	}
	var found deploy.Found
	for _, p := range named {
		found.Live = append(found.Live, deploy.Live{Type: "node pool", Name: p.Name, Where: "cluster " + cluster, ID: p.ID})
	}
	return found, nil
}

// civoClusters are the region's clusters of the manifest's clusterName.
func civoClusters(ctx context.Context, in proto.Message, _ deploy.Resolve) (deploy.Found, error) {
	input := in.(*civoclusterv1.CivoKubernetesClusterStackInput)
	spec := input.GetTarget().GetSpec()
	region := spec.GetRegion().String()
	ids, err := civoprovider.ClusterIDsNamed(ctx, input.GetProviderConfig(), region, spec.GetClusterName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		return deploy.Found{Unchecked: noCivoToken}, nil
	}
	if err != nil {
		return deploy.Found{}, errors.Wrapf(err, "look for a cluster %s in %s before creating one", spec.GetClusterName(), region)
	}
	var found deploy.Found
	for _, id := range ids {
		found.Live = append(found.Live, deploy.Live{Type: "cluster", Name: spec.GetClusterName(), Where: "region " + region, ID: id})
	}
	return found, nil
}

// civoPools is the pool of the manifest's nodePoolName in its cluster: a Civo pool's name is its
// id there, so there is at most one.
func civoPools(ctx context.Context, in proto.Message, resolve deploy.Resolve) (deploy.Found, error) {
	input := in.(*civopoolv1.CivoKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), clusterIDOutput)
	if err != nil || cluster == "" {
		return deploy.Found{Unchecked: noClusterYet}, err
	}
	exists, err := civoprovider.PoolExists(ctx, input.GetProviderConfig(), spec.GetRegion().String(), cluster, spec.GetNodePoolName())
	if errors.Is(err, civoprovider.ErrNoToken) {
		return deploy.Found{Unchecked: noCivoToken}, nil
	}
	if err != nil {
		return deploy.Found{}, errors.Wrapf(err, "look for a node pool %s in cluster %s before creating one", spec.GetNodePoolName(), cluster)
	}
	if !exists {
		return deploy.Found{}, nil
	}
	return deploy.Found{Live: []deploy.Live{{Type: "node pool", Name: spec.GetNodePoolName(), Where: "cluster " + cluster,
		ID: cluster + ":" + spec.GetNodePoolName()}}}, nil
}
