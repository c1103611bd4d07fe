package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// The labels each metric carries, as docs/karpenter.md's table lists them: the clouds, the kinds
// and a few fixed words, never a pool's, a node's, a cluster's or a NodeClass's name.
var documentedLabels = map[string][]string{
	"clusterplane_karpenter_cloud_requests_total":          {"cloud", "status"},
	"clusterplane_karpenter_pool_writes_total":             {"cloud", "result", "write"},
	"clusterplane_karpenter_node_creates_total":            {"cloud"},
	"clusterplane_karpenter_batched_creates_total":         {"cloud"},
	"clusterplane_karpenter_garbage_collected_nodes_total": {"cloud"},
	"clusterplane_karpenter_nodeclasses":                   {"kind", "ready"},
}

// Every metric, each written with objects of names of their own, carries exactly its documented
// labels, and no label's value is an object's name or id: a label added for a pool's name (or any
// other) fails here, as would a metric the docs do not list.
// Promise: karpenter-metrics-bounded-labels
func TestEveryMetricCarriesExactlyItsDocumentedLabelsAndNoObjectsName(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	ctx := context.Background()
	cluster := clouds.Cluster{ID: "cluster-id-x", Name: "cluster-name-x", Region: "fra1"}
	node := clouds.Node{ID: "node-id-x", Name: "node-name-x", ProviderID: "digitalocean://node-provider-x"}
	pool := clouds.Pool{ID: "pool-id-x", Name: "pool-name-x", Size: "s-2vcpu-4gb", Mark: "mark-x", Nodes: []clouds.Node{node}}
	objects := []string{cluster.ID, cluster.Name, node.ID, node.Name, node.ProviderID, pool.ID, pool.Name, pool.Mark, "nodeclass-name-x"}

	// A request to a cloud's API, counted where clusterplane's cloud clients send it.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"id":"not_found","message":"no cluster"}`, http.StatusNotFound)
	}))
	defer api.Close()
	stop := m.ObserveClouds()
	_, _ = clouds.NewDigitalOcean(api.URL, "dop_v1_labels").FindCluster(ctx, cluster.ID, "", "")
	stop()
	for _, c := range m.Count([]clouds.Cloud{fakeCloud{}}) {
		_, _ = c.CreatePool(ctx, cluster, clouds.PoolSpec{Mark: pool.Mark, Size: pool.Size, Count: 1})
		_ = c.ResizePool(ctx, cluster, pool, 2)
		_ = c.DeleteNode(ctx, cluster, pool, node)
		_ = c.DeletePool(ctx, cluster, pool)
	}
	m.Batch("testcloud", 3)
	m.Collected("testcloud")
	m.NodeClass("TestNodeClass", "nodeclass-name-x", "True")

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range families {
		want, ours := documentedLabels[f.GetName()]
		if !ours {
			if strings.HasPrefix(f.GetName(), "clusterplane_") {
				t.Errorf("%s is not among the documented metrics", f.GetName())
			}
			continue
		}
		seen[f.GetName()] = true
		for _, s := range f.GetMetric() {
			var got []string
			for _, l := range s.GetLabel() {
				got = append(got, l.GetName())
				if slices.Contains(objects, l.GetValue()) {
					t.Errorf("%s carries an object's name or id in %s=%q", f.GetName(), l.GetName(), l.GetValue())
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s carries the labels %v, want exactly %v", f.GetName(), got, want)
			}
		}
	}
	for name := range documentedLabels {
		if !seen[name] {
			t.Errorf("%s was not written, so its labels went unchecked", name)
		}
	}
}
