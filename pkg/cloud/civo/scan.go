package civo

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

// The Civo provider (pulumi-civo v2.4.8, which wraps terraform-provider-civo v1.1.4) reads a
// cluster in resourceKubernetesClusterRead (civo/kubernetes/resource_kubernetes_cluster.go): the
// properties below are those it sets there from the same answer the list gives, named as Pulumi
// names them. Its pools property is the first pool alone (flattenNodePool,
// civo/kubernetes/kubernetes.go), without labels or taints.
const (
	scanClusterType  = "civo:index/kubernetesCluster:KubernetesCluster"
	scanFirewallType = "civo:index/firewall:Firewall"
)

// listedRegion is the region whose list holds a Civo resource: the one its provider recorded.
func listedRegion(outputs map[string]any) string {
	region, _ := outputs["region"].(string)
	return region
}

// ScanReaders are Civo's cluster and firewall, each looked up in its region's list.
func (Driver) ScanReaders() map[string]cloud.ScanReader {
	return map[string]cloud.ScanReader{
		scanClusterType: {What: "Civo cluster", Compares: []string{"name", "region", "networkId",
			"kubernetesVersion", "clusterType", "cni", "tags", "firewallId", "pools.label", "pools.nodeCount", "pools.size",
			"pools.publicIpNodePool"}, Region: listedRegion},
		// The provider reads a firewall in resourceFirewallRead (civo/firewall/resource_firewall.go),
		// from FindFirewall, which looks it up in the region's list: its rules split by direction
		// (flattenFirewallRules). create_default_rules is kept from the configuration, not read.
		scanFirewallType: {List: cloud.ListsFirewalls, What: "Civo firewall", Region: listedRegion,
			Compares: []string{"name", "networkId", "region", "ingressRules", "egressRules"}},
	}
}

// ScanList lists region's clusters, then its firewalls: a Civo cluster's stack holds its
// firewall too, one more list a region.
func (Driver) ScanList(ctx context.Context, base, token, region string, opts cloudapi.Options) (cloud.Listing, cloud.Counted, error) {
	l := cloud.NewListing()
	c := New(base, token, Options{Options: opts})
	// A run's look-ups by name take their list from the run (RunClusters): the scan's is it.
	clusters, ok, err := RunClusters(ctx, base, token, region, func(ctx context.Context) ([]Cluster, error) {
		return c.Clusters(ctx, region)
	})
	if !ok {
		clusters, err = c.Clusters(ctx, region)
	}
	for _, cl := range clusters {
		addCluster(l, cl, region)
	}
	if err != nil {
		return l, c, err
	}
	firewalls, err := c.Firewalls(ctx, region)
	for _, fw := range firewalls {
		addFirewall(l, fw, region)
	}
	return l, c, err
}

// addCluster adds a cluster listed in region. resourceKubernetesClusterRead sets every compared
// attribute from the answer whatever it holds, its pools to none when the answer has none
// (flattenNodePool returns nil, civo/kubernetes/kubernetes.go): a property absent from props is
// compared as the scan's zero, which is that. But the provider reads the cluster on its own
// (apiClient.GetKubernetesCluster in resourceKubernetesClusterRead), not from the list: what
// Civo always gives and the list leaves out or empty (the name, network, version, type, CNI, and
// a pool at least) says nothing of that read, so it is cloud.Unread and the stack not judged.
// Tags and a pool's public IP flag may be empty or false in the cloud, so an absent one is read
// as that.
func addCluster(l cloud.Listing, cl Cluster, region string) {
	c := cloud.ListedCluster{Cloud: string(ID), ID: cl.ID, Name: cl.Name, Region: region, Tags: cl.Tags}
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
	for name, empty := range map[string]bool{"name": cl.Name == "", "networkId": cl.NetworkID == "",
		"kubernetesVersion": cl.KubernetesVersion == "", "clusterType": cl.ClusterType == "", "cni": cl.CNIPlugin == ""} {
		if empty {
			props[name] = cloud.Unread{}
		}
	}
	props["pools"] = cloud.Unread{}
	if len(cl.Pools) > 0 {
		p := cl.Pools[0]
		props["pools"] = map[string]any{"label": p.ID, "nodeCount": p.Count, "size": p.Size, "publicIpNodePool": p.PublicIPNodePool}
		if p.ID == "" || p.Size == "" {
			props["pools"] = cloud.Unread{}
		}
	}
	l.Clusters[cl.ID] = cloud.Listed{Cluster: c, Properties: props}
	for _, p := range cl.Pools {
		// Civo's pools keep no tags: their stack's mark is a node label's value. A rotation's
		// pool is its rotation's to resume or remove.
		if m, ok := stackmark.OfLabel(p.Labels[pools.StackLabel]); ok && p.Labels[pools.RotationLabel] == "" {
			l.MarkedPools[cl.ID+":"+p.ID] = cloud.ListedPool{Cluster: c, ID: p.ID, AdoptID: cl.ID + ":" + p.ID, Name: p.ID,
				Tags: []string{m.Tag()}}
		}
	}
}

// addFirewall adds a firewall listed in region.
func addFirewall(l cloud.Listing, fw Firewall, region string) {
	rules := map[string][]any{}
	for _, r := range fw.Rules {
		rules[r.Direction] = append(rules[r.Direction], map[string]any{"id": r.ID, "label": r.Label, "protocol": r.Protocol,
			"portRange": r.Ports, "action": r.Action, "cidrs": r.Cidr})
	}
	props := map[string]any{"name": fw.Name, "networkId": fw.NetworkID, "region": region}
	// resourceFirewallRead sets ingress_rule (egress_rule) only while it walks a rule of that
	// direction: with none left in the cloud it keeps the rules the state holds.
	for _, d := range []string{"ingress", "egress"} {
		props[d+"Rules"] = cloud.Kept{}
		if len(rules[d]) > 0 {
			props[d+"Rules"] = rules[d]
		}
	}
	l.Firewalls[fw.ID] = cloud.Listed{Properties: props}
}
