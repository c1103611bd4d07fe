// Package metrics is the provider's own Prometheus metrics, registered beside Karpenter core's
// on controller-runtime's registry: the cloud requests, the pool writes, the batched creates,
// the garbage-collected nodes and the NodeClasses' readiness. Every label's values come from a
// fixed set: a cloud's name (the drivers' table), a write, a result, a NodeClass kind and a
// condition status; never a pool's, a node's or a NodeClass's name.
package metrics

import (
	"context"
	"strconv"
	"sync"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the provider's metrics, registered on one registry.
type Metrics struct {
	cloudRequests *prometheus.CounterVec
	poolWrites    *prometheus.CounterVec
	creates       *prometheus.CounterVec
	batched       *prometheus.CounterVec
	collected     *prometheus.CounterVec
	nodeClasses   *prometheus.GaugeVec

	mu        sync.Mutex
	readiness map[classKey]string
}

type classKey struct{ kind, name string }

// New makes the metrics and registers them on reg (controller-runtime's metrics.Registry in
// the operator, which Karpenter core's metrics are on and its /metrics serves).
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{readiness: map[classKey]string{}}
	m.cloudRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_karpenter_cloud_requests_total",
		Help: "Requests the provider sent to a cloud's API, each retry counted, by cloud and HTTP status (0: no answer)."},
		[]string{"cloud", "status"})
	m.poolWrites = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_karpenter_pool_writes_total",
		Help: "The provider's writes of its node pools, by cloud, write (create, resize, delete_pool, delete_node) and result (ok, error)."},
		[]string{"cloud", "write", "result"})
	m.creates = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_karpenter_node_creates_total",
		Help: "NodeClaims' creates a pool write served, by cloud."}, []string{"cloud"})
	m.batched = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_karpenter_batched_creates_total",
		Help: "NodeClaims' creates served by a pool write shared with others of the same batch, by cloud."}, []string{"cloud"})
	m.collected = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_karpenter_garbage_collected_nodes_total",
		Help: "Nodes of the provider's pools that no NodeClaim named after the grace period, deleted, by cloud."}, []string{"cloud"})
	m.nodeClasses = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "clusterplane_karpenter_nodeclasses",
		Help: "NodeClasses by kind and the status of their Ready condition (True, False, Unknown)."}, []string{"kind", "ready"})
	reg.MustRegister(m.cloudRequests, m.poolWrites, m.creates, m.batched, m.collected, m.nodeClasses)
	return m
}

// ObserveClouds counts every cloud request of this process (clusterplane's cloud clients) until
// the returned function is called.
func (m *Metrics) ObserveClouds() (stop func()) {
	return cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		cloud := r.Cloud
		if cloud == "" {
			cloud = "other"
		}
		m.cloudRequests.WithLabelValues(cloud, strconv.Itoa(r.Status)).Inc()
	})
}

// Batch counts n NodeClaims' creates that one pool write of cloud served.
func (m *Metrics) Batch(cloud string, n int) {
	m.creates.WithLabelValues(cloud).Add(float64(n))
	if n > 1 {
		m.batched.WithLabelValues(cloud).Add(float64(n))
	}
}

// Collected counts a node of cloud garbage collection deleted.
func (m *Metrics) Collected(cloud string) { m.collected.WithLabelValues(cloud).Inc() }

// NodeClass records the Ready status of the NodeClass kind/name; "" when it is gone.
func (m *Metrics) NodeClass(kind, name, ready string) {
	switch ready {
	case "", "True", "False":
	default:
		ready = "Unknown"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := classKey{kind, name}
	if old, ok := m.readiness[key]; ok {
		m.nodeClasses.WithLabelValues(kind, old).Dec()
		delete(m.readiness, key)
	}
	if ready != "" {
		m.readiness[key] = ready
		m.nodeClasses.WithLabelValues(kind, ready).Inc()
	}
}

// Count wraps each cloud so that its pool writes are counted.
func (m *Metrics) Count(cs []clouds.Cloud) []clouds.Cloud {
	out := make([]clouds.Cloud, len(cs))
	for i, c := range cs {
		out[i] = counted{c, m}
	}
	return out
}

// counted is a cloud whose pool writes are counted.
type counted struct {
	clouds.Cloud
	m *Metrics
}

func (c counted) write(write string, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	c.m.poolWrites.WithLabelValues(c.Name(), write, result).Inc()
}

func (c counted) CreatePool(ctx context.Context, cl clouds.Cluster, spec clouds.PoolSpec) (clouds.Pool, error) {
	p, err := c.Cloud.CreatePool(ctx, cl, spec)
	c.write("create", err)
	return p, err
}

func (c counted) ResizePool(ctx context.Context, cl clouds.Cluster, p clouds.Pool, count int) error {
	err := c.Cloud.ResizePool(ctx, cl, p, count)
	c.write("resize", err)
	return err
}

func (c counted) DeleteNode(ctx context.Context, cl clouds.Cluster, p clouds.Pool, n clouds.Node) error {
	err := c.Cloud.DeleteNode(ctx, cl, p, n)
	c.write("delete_node", err)
	return err
}

func (c counted) DeletePool(ctx context.Context, cl clouds.Cluster, p clouds.Pool) error {
	err := c.Cloud.DeletePool(ctx, cl, p)
	c.write("delete_pool", err)
	return err
}
