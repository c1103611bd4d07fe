package scan

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
)

// The Civo provider (pulumi-civo v2.4.8, which wraps terraform-provider-civo v1.1.4) reads a
// cluster in resourceKubernetesClusterRead (civo/kubernetes/resource_kubernetes_cluster.go): the
// properties below are those it sets there from the same answer the list gives, named as Pulumi
// names them. Its pools property is the first pool alone (flattenNodePool,
// civo/kubernetes/kubernetes.go), without labels or taints.
const civoClusterType = "civo:index/kubernetesCluster:KubernetesCluster"

func init() {
	readers[civoClusterType] = reader{cloud: cost.Civo, what: "Civo cluster", compares: []string{"name", "region", "networkId",
		"kubernetesVersion", "clusterType", "cni", "tags", "firewallId", "pools.label", "pools.nodeCount", "pools.size",
		"pools.publicIpNodePool"}, region: func(outputs map[string]any) string {
		region, _ := outputs["region"].(string)
		return region
	}}
}

// addCivo adds a cluster listed in region.
func (l *listing) addCivo(cl civo.Cluster, region string) {
	c := Cluster{Cloud: cost.Civo, ID: cl.ID, Name: cl.Name, Region: region, Tags: cl.Tags}
	props := map[string]any{
		"name": cl.Name,
		// The provider records the region it was configured with; the cluster is in the
		// region whose list holds it.
		"region":            region,
		"networkId":         cl.NetworkID,
		"kubernetesVersion": cl.KubernetesVersion,
		"clusterType":       cl.ClusterType,
		"cni":               cl.CNIPlugin,
		// The provider keeps the tags as one string, space-separated.
		"tags":       strings.Join(cl.Tags, " "),
		"firewallId": cl.FirewallID,
	}
	if len(cl.Pools) > 0 {
		p := cl.Pools[0]
		props["pools"] = map[string]any{"label": p.ID, "nodeCount": p.Count, "size": p.Size, "publicIpNodePool": p.PublicIPNodePool}
	}
	l.clusters[cl.ID] = listed{cluster: c, properties: props}
}
