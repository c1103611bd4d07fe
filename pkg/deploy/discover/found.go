package discover

import (
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud"
)

// maxPages bounds a list: an API that always answers a next page must not hold discover.
const maxPages = 1000

// manifests are a found cluster's manifests, named name, in the cloud named cloudName and of id:
// the cluster with its default pool inside, then one per other pool. What is the cloud's own
// (its kinds' fields) the driver said; what every cloud shares (metadata read back from
// clusterplane's tags, a pool's reference to its cluster, the header) is written here.
func manifests(d cloud.Driver, c cloud.FoundCluster, name string) []manifest {
	k, cloudName := d.Kinds(), d.Env().Name
	md, tags := metadata(k.Cluster, name, c.ID, c.Tags)
	spec := object{"clusterName": c.Name, "region": c.Region, "tags": tags}
	for k, v := range c.Spec {
		spec[k] = v
	}
	def := object{}
	for k, v := range c.Default.Spec {
		def[k] = v
	}
	if c.Default.Tagged {
		// The default pool carries the cluster's derived tags, not a pool kind's.
		def["tags"] = withoutDerived(k.Cluster, md, c.Default.Tags)
	}
	spec["defaultNodePool"] = def
	sortKey := string(d.ID()) + "/" + c.Where + "/" + md.Name + "/" + c.ID
	out := []manifest{{
		kind: k.Cluster, cloudID: c.ID, cloud: cloudName, region: c.Where,
		what:     "Kubernetes cluster " + c.Name,
		fileBase: md.Name, sortKey: sortKey, notes: c.Notes, managed: c.Managed,
		doc: object{"apiVersion": k.APIVersion, "kind": k.Cluster, "metadata": raw(md), "spec": spec},
	}}
	for _, p := range c.Pools {
		out = append(out, poolManifest(k, cloudName, c, md, p, sortKey))
	}
	return out
}

// poolManifest is an extra pool's manifest: it refers to its cluster's stack with valueFrom.
func poolManifest(k cloud.Kinds, cloudName string, c cloud.FoundCluster, clusterMD *sharedv1.CloudResourceMetadata, p cloud.FoundPool, sortKey string) manifest {
	md, tags := metadata(k.Pool, clusterMD.Name+"-"+p.Name, p.ID, p.Tags)
	spec := object{"nodePoolName": p.Name, "cluster": raw(reference(k.Cluster, clusterMD))}
	for k, v := range p.Spec {
		spec[k] = v
	}
	if p.Tagged {
		spec["tags"] = tags
	}
	return manifest{
		kind: k.Pool, cloudID: p.ID, cloud: cloudName, region: c.Where, pool: true, managed: p.Managed,
		what:     "node pool " + p.Name + " of Kubernetes cluster " + c.Name + " (" + c.ID + ")",
		fileBase: md.Name, sortKey: sortKey, notes: p.Notes,
		doc: object{"apiVersion": k.APIVersion, "kind": k.Pool, "metadata": raw(md), "spec": spec},
	}
}

// reference is a pool's valueFrom to its cluster's stack.
func reference(kind string, md *sharedv1.CloudResourceMetadata) *sharedv1.StringValueOrRef {
	return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_ValueFrom{
		ValueFrom: &sharedv1.ValueFromRef{Kind: kind, Name: md.GetName(), Env: md.GetEnv()},
	}}
}
