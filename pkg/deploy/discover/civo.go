package discover

import (
	"context"
	"sort"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
)

const (
	civoClusterKind = "CivoKubernetesCluster"
	civoPoolKind    = "CivoKubernetesNodePool"
	civoAPIVersion  = "civo.clusterplane.dev/v1"
	// civoOwnLabels is the prefix of the node labels Civo sets by itself.
	civoOwnLabels = "kubernetes.civo.com/"
)

// Civo's models (pkg/cloud/civo), named as this package's code knows them. Civo's answer also
// holds the cluster's kubeconfig: having no field for it, the decoder drops it unread.
type (
	civoCluster = civo.Cluster
	civoPool    = civo.Pool
)

func discoverCivo(ctx context.Context, c *civo.Client, o Options) ([]manifest, []string, error) {
	regions, notes, err := civoRegions(ctx, c, o)
	if err != nil {
		return nil, nil, err
	}
	type found struct {
		cl     civoCluster
		region string
	}
	var all []found
	for _, region := range regions {
		clusters, err := c.Clusters(ctx, region)
		if err != nil {
			return nil, nil, err
		}
		for _, cl := range clusters {
			if wanted(o, cl.ID, cl.Name) {
				all = append(all, found{cl, region})
			}
		}
	}
	var clusters []discovered
	for _, f := range all {
		clusters = append(clusters, discovered{f.cl.ID, f.cl.Name, f.region})
	}
	names := clusterNames(clusters)
	var out []manifest
	for _, f := range all {
		out = append(out, civoManifests(f.cl, f.region, names[f.cl.ID])...)
	}
	sortManifests(out)
	return out, notes, nil
}

// civoRegions are the regions to read: the one asked for, or those the account offers (one
// request) that a manifest can name: every region spelled as one (cost.RegionName), so a region
// Civo opens is read the day it opens.
func civoRegions(ctx context.Context, c *civo.Client, o Options) ([]string, []string, error) {
	if o.Region != "" {
		r := strings.ToLower(o.Region)
		if !cost.RegionName(r) {
			return nil, nil, errors.Errorf("Civo region %q is not a region code (lower-case letters then digits, e.g. fra1)", o.Region)
		}
		return []string{r}, nil, nil
	}
	list, err := c.Regions(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out, notes []string
	for _, r := range list {
		code := strings.ToLower(r.Code)
		if cost.RegionName(code) {
			out = append(out, code)
		} else {
			notes = append(notes, "Civo region "+r.Code+" is not spelled as a manifest's region can be: not read.")
		}
	}
	sort.Strings(out)
	return out, notes, nil
}

// civoManifests are a cluster's manifests: the cluster with its first pool, which the provider
// takes for the default one, then one per other pool.
func civoManifests(cl civoCluster, region, name string) []manifest {
	md, tags := metadata(civoClusterKind, name, cl.ID, cl.Tags)
	spec := object{
		"clusterName":       cl.Name,
		"region":            region,
		"kubernetesVersion": orDefault(cl.KubernetesVersion, cl.Version),
		"clusterType":       strings.ToLower(cl.ClusterType),
		"cni":               strings.ToLower(cl.CNIPlugin),
		"tags":              tags,
	}
	if cl.NetworkID != "" {
		spec["network"] = raw(literal(cl.NetworkID))
	}
	// Without a firewall the module would create one; the cluster's own is kept instead.
	if cl.FirewallID != "" {
		spec["firewall"] = raw(literal(cl.FirewallID))
	}
	var notes []string
	// The provider reads a cluster's applications back as none, and refuses any change to them:
	// written here they could never be adopted, so they are said, not written.
	if len(cl.InstalledApplications) > 0 {
		var names []string
		for _, a := range cl.InstalledApplications {
			names = append(names, a.Name)
		}
		notes = append(notes, "Installed applications: "+strings.Join(names, ", ")+". They are not written as spec.applications: "+
			"the Civo provider reads them back as none and refuses to change them after creation.")
	}
	// Civo's API has no field for the CIDRs: they are rules of the firewall the module created,
	// and a manifest that names its firewall may not carry them.
	if labels.Managed(cl.Tags, civoClusterKind) && cl.FirewallID != "" {
		notes = append(notes, "spec.apiServerAllowedCidrs is not written: Civo's API has no field for them (they are rules of "+
			"the firewall "+cl.FirewallID+"), and a manifest naming its firewall cannot carry them.")
	}
	def := civoPool{}
	if len(cl.Pools) > 0 {
		def = cl.Pools[0]
	}
	if len(userLabels(def.Labels)) > 0 || len(def.Taints) > 0 {
		notes = append(notes, "The first pool, "+def.ID+", has labels or taints, which the cluster's default pool cannot carry "+
			"(civo/terraform-provider-civo#380): they are not written.")
	}
	spec["defaultNodePool"] = object{
		"size": def.Size, "nodeCount": def.Count, "publicIpNodePool": def.PublicIPNodePool,
	}
	sortKey := "civo/" + region + "/" + md.Name + "/" + cl.ID
	out := []manifest{{
		kind: civoClusterKind, cloudID: cl.ID, cloud: "Civo", region: region,
		what:     "Kubernetes cluster " + cl.Name,
		fileBase: md.Name, sortKey: sortKey, notes: append([]string{"Default pool: " + def.ID + "."}, notes...),
		managed: labels.Managed(cl.Tags, civoClusterKind),
		doc:     object{"apiVersion": civoAPIVersion, "kind": civoClusterKind, "metadata": raw(md), "spec": spec},
	}}
	for _, p := range cl.Pools[min(1, len(cl.Pools)):] {
		out = append(out, civoPoolManifest(cl, md, p, region, sortKey))
	}
	return out
}

func civoPoolManifest(cl civoCluster, clusterMD *sharedv1.CloudResourceMetadata, p civoPool, region, sortKey string) manifest {
	// A Civo pool's name is its id only within its cluster: adopt (and the pool's provider, which
	// imports it) needs the cluster too, as CLUSTER_ID:POOL_NAME.
	id := CivoPoolID(cl.ID, p.ID)
	md := &sharedv1.CloudResourceMetadata{Name: metaName(clusterMD.Name + "-" + p.ID), Annotations: map[string]string{CloudIDAnnotation: id}}
	spec := object{
		"nodePoolName":     p.ID,
		"cluster":          raw(reference(civoClusterKind, clusterMD)),
		"region":           region,
		"size":             p.Size,
		"nodeCount":        p.Count,
		"labels":           userLabels(p.Labels),
		"taints":           rawTaints(p.Taints),
		"publicIpNodePool": p.PublicIPNodePool,
	}
	return manifest{
		kind: civoPoolKind, cloudID: id, cloud: "Civo", region: region, pool: true,
		what:     "node pool " + p.ID + " of Kubernetes cluster " + cl.Name + " (" + cl.ID + ")",
		fileBase: md.Name, sortKey: sortKey, notes: []string{civoNoBounds},
		doc: object{"apiVersion": civoAPIVersion, "kind": civoPoolKind, "metadata": raw(md), "spec": spec},
	}
}

// CivoPoolID is the id that adopt takes for a Civo node pool, CLUSTER_ID:POOL_NAME: a pool's name
// names it only within its cluster.
func CivoPoolID(clusterID, poolName string) string { return clusterID + ":" + poolName }

// civoNoBounds says why a Civo pool's file has no autoscaling: Civo keeps none on a pool.
const civoNoBounds = "spec.autoScale, minNodes and maxNodes are not written: Civo's API keeps no autoscaling setting " +
	"or bounds on a pool (the cluster autoscaler takes the bounds as a flag); set them again if the pool had them."

// userLabels are a pool's labels without those Civo sets on its nodes by itself.
func userLabels(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if !strings.HasPrefix(k, civoOwnLabels) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
