package scan

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
)

// The Civo provider (pulumi-civo v2.4.8, which wraps terraform-provider-civo v1.1.4) reads a
// cluster in resourceKubernetesClusterRead (civo/kubernetes/resource_kubernetes_cluster.go): the
// properties below are those it sets there from the same answer the list gives, named as Pulumi
// names them. Its pools property is the first pool alone (flattenNodePool,
// civo/kubernetes/kubernetes.go), without labels or taints.
const (
	civoClusterType  = "civo:index/kubernetesCluster:KubernetesCluster"
	civoFirewallType = "civo:index/firewall:Firewall"
)

// civoRegion is the region whose list holds a Civo resource: the one its provider recorded.
func civoRegion(outputs map[string]any) string {
	region, _ := outputs["region"].(string)
	return region
}

func init() {
	readers[civoClusterType] = reader{cloud: string(civo.ID), what: "Civo cluster", compares: []string{"name", "region", "networkId",
		"kubernetesVersion", "clusterType", "cni", "tags", "firewallId", "pools.label", "pools.nodeCount", "pools.size",
		"pools.publicIpNodePool"}, region: civoRegion}
	// The provider reads a firewall in resourceFirewallRead (civo/firewall/resource_firewall.go),
	// from FindFirewall, which looks it up in the region's list: its rules split by direction
	// (flattenFirewallRules). create_default_rules is kept from the configuration, not read.
	readers[civoFirewallType] = reader{cloud: string(civo.ID), list: firewalls, what: "Civo firewall", region: civoRegion,
		compares: []string{"name", "networkId", "region", "ingressRules", "egressRules"}}
}

// addCivo adds a cluster listed in region. resourceKubernetesClusterRead sets every compared
// attribute from the answer whatever it holds, its pools to none when the answer has none
// (flattenNodePool returns nil, civo/kubernetes/kubernetes.go): a property absent from props is
// compared as the scan's zero, which is that.
func (l *listing) addCivo(cl civo.Cluster, region string) {
	c := Cluster{Cloud: string(civo.ID), ID: cl.ID, Name: cl.Name, Region: region, Tags: cl.Tags}
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

// addCivoFirewall adds a firewall listed in region.
func (l *listing) addCivoFirewall(fw civo.Firewall, region string) {
	rules := map[string][]any{}
	for _, r := range fw.Rules {
		rules[r.Direction] = append(rules[r.Direction], map[string]any{"id": r.ID, "label": r.Label, "protocol": r.Protocol,
			"portRange": r.Ports, "action": r.Action, "cidrs": r.Cidr})
	}
	props := map[string]any{"name": fw.Name, "networkId": fw.NetworkID, "region": region}
	// resourceFirewallRead sets ingress_rule (egress_rule) only while it walks a rule of that
	// direction: with none left in the cloud it keeps the rules the state holds.
	for _, d := range []string{"ingress", "egress"} {
		props[d+"Rules"] = kept{}
		if len(rules[d]) > 0 {
			props[d+"Rules"] = rules[d]
		}
	}
	l.firewalls[fw.ID] = listed{properties: props}
}
