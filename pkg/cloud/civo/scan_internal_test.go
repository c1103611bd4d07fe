package civo

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

// Promise: scan-left-out-property-not-judged
func TestACivoListThatLeavesOutWhatCivoAlwaysGivesIsUnread(t *testing.T) {
	full := func() Cluster {
		return Cluster{ID: "c1", Name: "dev", KubernetesVersion: "1.30.5-k3s1", ClusterType: "k3s", CNIPlugin: "flannel",
			NetworkID: "net", FirewallID: "fw", Pools: []Pool{{ID: "p1", Size: "g4s.kube.small", Count: 2}}}
	}
	tests := []struct {
		name   string
		edit   func(*Cluster)
		unread []string
	}{
		{"a cluster listed in full has nothing unread", func(*Cluster) {}, nil},
		{"a cluster listed without pools has its pools unread", func(c *Cluster) { c.Pools = nil }, []string{"pools"}},
		{"a pool listed without its size is unread", func(c *Cluster) { c.Pools[0].Size = "" }, []string{"pools"}},
		{"a cluster listed without its version is unread there", func(c *Cluster) { c.KubernetesVersion = "" }, []string{"kubernetesVersion"}},
		{"a cluster listed without its network, type and CNI is unread there",
			func(c *Cluster) { c.NetworkID, c.ClusterType, c.CNIPlugin = "", "", "" }, []string{"networkId", "clusterType", "cni"}},
		{"a cluster listed without tags has none, as Civo may", func(c *Cluster) { c.Tags = nil }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := full()
			tt.edit(&cl)
			l := cloud.NewListing()
			addCluster(l, cl, "lon1")
			props := l.Clusters["c1"].Properties
			var got []string
			for _, name := range []string{"name", "networkId", "kubernetesVersion", "clusterType", "cni", "tags", "pools"} {
				if _, ok := props[name].(cloud.Unread); ok {
					got = append(got, name)
				}
			}
			if !slices.Equal(got, tt.unread) {
				t.Errorf("unread %v, want %v", got, tt.unread)
			}
		})
	}
}

// Civo's pools keep no tags: a pool whose node label carries a stack's mark is listed among the
// marked pools with that mark as a tag, by the id adopt takes (CLUSTER_ID:POOL_NAME); a
// rotation's pool is its rotation's.
func TestACivoPoolLabelledWithAStacksMarkIsAMarkedPool(t *testing.T) {
	m := stackmark.Of("file:///state", "p/s")
	l := cloud.NewListing()
	addCluster(l, Cluster{ID: "c1", Name: "dev", Pools: []Pool{
		{ID: "workers", Labels: map[string]string{pools.StackLabel: m.Label()}},
		{ID: "by-hand", Labels: map[string]string{"team": "a"}},
		{ID: "rotating", Labels: map[string]string{pools.StackLabel: m.Label(), pools.RotationLabel: "x"}}}}, "lon1")
	p, ok := l.MarkedPools["c1:workers"]
	if len(l.MarkedPools) != 1 || !ok || p.ID != "workers" || !slices.Equal(stackmark.In(p.Tags), []stackmark.Mark{m}) {
		t.Errorf("marked pools %+v, want workers alone, carrying %s", l.MarkedPools, m.Tag())
	}
}
