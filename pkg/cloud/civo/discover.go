package civo

import (
	"context"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/pkg/errors"
)

// Discover reads the account's clusters region by region (Civo's API is per region): the one
// asked for, or every region the account offers that a manifest can spell.
func (Driver) Discover(ctx context.Context, a cloud.Account) (cloud.Found, error) {
	c := New(a.URL, a.Token, Options{Options: a.Transport, MaxPages: a.MaxPages})
	regions, notes, err := discoverRegions(ctx, c, a)
	if err != nil {
		return cloud.Found{}, err
	}
	found := cloud.Found{Notes: notes}
	for _, region := range regions {
		clusters, err := c.Clusters(ctx, region)
		if err != nil {
			return cloud.Found{}, err
		}
		for _, cl := range clusters {
			if a.Wanted(cl.ID, cl.Name) {
				found.Clusters = append(found.Clusters, Discovered(cl, region, a))
			}
		}
	}
	found.Requests = c.Requests()
	return found, nil
}

// discoverRegions are the regions to read: the one asked for, or those the account offers (one
// request) that a manifest can name: every region spelled as one, so a region Civo opens is read
// the day it opens.
func discoverRegions(ctx context.Context, c *Client, a cloud.Account) ([]string, []string, error) {
	if a.Region != "" {
		r := strings.ToLower(a.Region)
		if !a.Spellable(r) {
			return nil, nil, errors.Errorf("Civo region %q is not a region code (lower-case letters then digits, e.g. fra1)", a.Region)
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
		if a.Spellable(code) {
			out = append(out, code)
		} else {
			notes = append(notes, "Civo region "+r.Code+" is not spelled as a manifest's region can be: not read.")
		}
	}
	sort.Strings(out)
	return out, notes, nil
}

// Discovered is a cluster of region as its manifests write it: the first pool, which the
// provider takes for the default one, inside, then one per other pool.
func Discovered(cl Cluster, region string, a cloud.Account) cloud.FoundCluster {
	managed := a.Managed(cl.Tags, Driver{}.Kinds().Cluster)
	spec := map[string]any{
		"kubernetesVersion": orDefault(cl.KubernetesVersion, cl.Version),
		"clusterType":       strings.ToLower(cl.ClusterType),
		"cni":               strings.ToLower(cl.CNIPlugin),
	}
	if cl.NetworkID != "" {
		spec["network"] = cloud.Literal(cl.NetworkID)
	}
	// Without a firewall the module would create one; the cluster's own is kept instead.
	if cl.FirewallID != "" {
		spec["firewall"] = cloud.Literal(cl.FirewallID)
	}
	def := Pool{}
	if len(cl.Pools) > 0 {
		def = cl.Pools[0]
	}
	out := cloud.FoundCluster{
		Named:  cloud.Named{ID: cl.ID, Name: cl.Name, Where: region},
		Region: region, Tags: cl.Tags, Spec: spec, Managed: managed,
		Default: cloud.FoundPool{ID: def.ID, Name: def.ID, Spec: map[string]any{
			"size": def.Size, "nodeCount": def.Count, "publicIpNodePool": def.PublicIPNodePool,
		}},
		Notes: append([]string{"Default pool: " + def.ID + "."}, clusterNotes(cl, def, managed)...),
	}
	for _, p := range cl.Pools[min(1, len(cl.Pools)):] {
		if _, ok := p.Labels[KarpenterMarkLabel]; ok {
			out.Notes = append(out.Notes, "Pool "+p.ID+" is the Karpenter provider's, which makes and deletes it as pods come "+
				"and go: not written.")
			continue
		}
		out.Pools = append(out.Pools, cloud.FoundPool{
			ID: PoolID(cl.ID, p.ID), Name: p.ID, Notes: []string{noBounds},
			Spec: map[string]any{
				"region":           region,
				"size":             p.Size,
				"nodeCount":        p.Count,
				"labels":           civopool.UserLabels(p.Labels),
				"taints":           cloud.Taints(p.Taints),
				"publicIpNodePool": p.PublicIPNodePool,
			},
		})
	}
	return out
}

// clusterNotes are what a cluster's manifest cannot say: its applications, its API server's
// CIDRs, its first pool's labels and taints.
func clusterNotes(cl Cluster, def Pool, managed bool) []string {
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
	if managed && cl.FirewallID != "" {
		notes = append(notes, "spec.apiServerAllowedCidrs is not written: Civo's API has no field for them (they are rules of "+
			"the firewall "+cl.FirewallID+"), and a manifest naming its firewall cannot carry them.")
	}
	if len(civopool.UserLabels(def.Labels)) > 0 || len(def.Taints) > 0 {
		notes = append(notes, "The first pool, "+def.ID+", has labels or taints, which the cluster's default pool cannot carry "+
			"(civo/terraform-provider-civo#380): they are not written.")
	}
	return notes
}

// PoolID is the id that adopt takes for a Civo node pool, CLUSTER_ID:POOL_NAME: a pool's name
// names it only within its cluster, and the pool's provider imports it by both.
func PoolID(clusterID, poolName string) string { return clusterID + ":" + poolName }

// noBounds says why a Civo pool's file has no autoscaling: Civo keeps none on a pool.
const noBounds = "spec.autoScale, minNodes and maxNodes are not written: Civo's API keeps no autoscaling setting " +
	"or bounds on a pool (the cluster autoscaler takes the bounds as a flag); set them again if the pool had them."

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// KarpenterMarkLabel is the node label by which clusterplane's Karpenter provider (karpenter/)
// marks the pools it owns (Civo's pools carry no tags), its value the pool's mark: discover writes
// no manifest for such a pool, as adopting it would fight the provider, which resizes and deletes it.
const KarpenterMarkLabel = "karpenter.clusterplane.dev/pool"
