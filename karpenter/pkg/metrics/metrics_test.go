package metrics_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// fakeCloud answers pool writes with err; the rest of clouds.Cloud is never called.
type fakeCloud struct {
	clouds.Cloud
	err error
}

func (f fakeCloud) Name() string { return "testcloud" }
func (f fakeCloud) CreatePool(context.Context, clouds.Cluster, clouds.PoolSpec) (clouds.Pool, error) {
	return clouds.Pool{}, f.err
}
func (f fakeCloud) ResizePool(context.Context, clouds.Cluster, clouds.Pool, int) error { return f.err }
func (f fakeCloud) DeleteNode(context.Context, clouds.Cluster, clouds.Pool, clouds.Node) error {
	return f.err
}
func (f fakeCloud) DeletePool(context.Context, clouds.Cluster, clouds.Pool) error { return f.err }

// value is the metric's value of those labels in reg, 0 when it has none.
func value(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			if s.GetCounter() != nil {
				return s.GetCounter().GetValue()
			}
			return s.GetGauge().GetValue()
		}
	}
	return 0
}

func TestEachPoolWriteIsCountedByCloudWriteAndResult(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	ctx := context.Background()
	ok := m.Count([]clouds.Cloud{fakeCloud{}})[0]
	bad := m.Count([]clouds.Cloud{fakeCloud{err: errors.New("refused")}})[0]
	_, _ = ok.CreatePool(ctx, clouds.Cluster{}, clouds.PoolSpec{})
	_ = ok.ResizePool(ctx, clouds.Cluster{}, clouds.Pool{}, 3)
	_ = ok.ResizePool(ctx, clouds.Cluster{}, clouds.Pool{}, 4)
	_ = bad.DeleteNode(ctx, clouds.Cluster{}, clouds.Pool{}, clouds.Node{})
	_ = ok.DeletePool(ctx, clouds.Cluster{}, clouds.Pool{})
	for _, tc := range []struct {
		name, write, result string
		want                float64
	}{
		{"a create that succeeded is one ok create", "create", "ok", 1},
		{"two resizes are two", "resize", "ok", 2},
		{"a refused node delete is an error", "delete_node", "error", 1},
		{"a pool delete is counted apart from a node's", "delete_pool", "ok", 1},
		{"no write that did not happen is counted", "create", "error", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := value(t, reg, "clusterplane_karpenter_pool_writes_total", map[string]string{"cloud": "testcloud", "write": tc.write, "result": tc.result})
			if got != tc.want {
				t.Errorf("%s %s = %v, want %v", tc.write, tc.result, got, tc.want)
			}
		})
	}
}

func TestNodeClassesAreCountedByTheirLastReadinessAndForgottenOnceGone(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	m.NodeClass("TestNodeClass", "a", "False")
	m.NodeClass("TestNodeClass", "a", "True")
	m.NodeClass("TestNodeClass", "b", "True")
	m.NodeClass("TestNodeClass", "c", "False")
	m.NodeClass("TestNodeClass", "c", "")
	m.NodeClass("TestNodeClass", "d", "odd")
	for _, tc := range []struct {
		name, ready string
		want        float64
	}{
		{"two classes are Ready, one of them after it was not", "True", 2},
		{"a class gone counts no more", "False", 0},
		{"a status of no known value is Unknown", "Unknown", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := value(t, reg, "clusterplane_karpenter_nodeclasses", map[string]string{"kind": "TestNodeClass", "ready": tc.ready}); got != tc.want {
				t.Errorf("ready=%s: %v, want %v", tc.ready, got, tc.want)
			}
		})
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if v := l.GetValue(); v == "a" || v == "b" || v == "c" || v == "d" {
					t.Errorf("%s carries a NodeClass's name in %s=%q", f.GetName(), l.GetName(), v)
				}
			}
		}
	}
}

func TestABatchCountsItsCreatesAndOnlyASharedWriteCountsAsBatched(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	m.Batch("testcloud", 1)
	m.Batch("testcloud", 3)
	if got := value(t, reg, "clusterplane_karpenter_node_creates_total", map[string]string{"cloud": "testcloud"}); got != 4 {
		t.Errorf("creates: %v, want 4", got)
	}
	if got := value(t, reg, "clusterplane_karpenter_batched_creates_total", map[string]string{"cloud": "testcloud"}); got != 3 {
		t.Errorf("batched creates: %v, want 3 (the write that served three)", got)
	}
}
