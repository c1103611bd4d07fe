// Package metrics is `clusterplane serve`'s Prometheus metrics: the API's requests, the jobs
// and their reconciles, the cloud requests the process sends, and the fleet read from the
// store at each scrape. Every label takes values from a fixed set: a route's pattern, never its
// path; a job's kind; a cloud request's operation with its ids cut out, and at most
// MaxOperations of them.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are one replica's metrics, in a registry of their own (not Prometheus's global one),
// so that two in one process, as in tests, count apart.
type Metrics struct {
	Registry *prometheus.Registry

	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	reconciles *prometheus.HistogramVec
	retried    *prometheus.CounterVec
	failed     *prometheus.CounterVec
	rescued    *prometheus.CounterVec
	cloud      *prometheus.CounterVec
	cloudTime  *prometheus.HistogramVec
	jobKinds   map[string]string
	operations *operations
}

// New makes the metrics and registers them, with the Go runtime's and the process's. jobKinds
// maps River's job kinds to their label value (clusterplane_reconcile: reconcile); any other
// kind is "other".
func New(jobKinds map[string]string) *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), jobKinds: jobKinds, operations: newOperations(MaxOperations)}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_http_requests_total",
		Help: "The API's requests answered, by route pattern, method and status."}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "clusterplane_http_request_duration_seconds",
		Help: "How long the API took to answer, by route pattern and method.", Buckets: prometheus.DefBuckets},
		[]string{"route", "method"})
	m.reconciles = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "clusterplane_reconcile_duration_seconds",
		Help:    "How long this replica's jobs ran, by kind and outcome (completed, handed_back, retried, failed, cancelled, snoozed).",
		Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}}, []string{"kind", "outcome"})
	m.retried = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_jobs_retried_total",
		Help: "Jobs of this replica that failed and are queued again, by kind."}, []string{"kind"})
	m.failed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_jobs_failed_total",
		Help: "Jobs of this replica that failed their last attempt (River discards them), by kind."}, []string{"kind"})
	m.rescued = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_jobs_rescued_total",
		Help: "Jobs this replica gave back to the queue because their worker died (its lease ran out), by kind."}, []string{"kind"})
	m.cloud = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clusterplane_cloud_requests_total",
		Help: "Requests this process sent to a cloud's API, retries included, by cloud, operation and status (0: no answer)."},
		[]string{"cloud", "operation", "status"})
	m.cloudTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "clusterplane_cloud_request_duration_seconds",
		Help: "How long a cloud's API took to answer, by cloud and operation.", Buckets: prometheus.DefBuckets},
		[]string{"cloud", "operation"})
	m.Registry.MustRegister(m.requests, m.latency, m.reconciles, m.retried, m.failed, m.rescued, m.cloud, m.cloudTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Each job counter has a series of 0 for every kind from the start: a rate over a series that
	// appears only at its first failure would miss that failure.
	for _, k := range jobKinds {
		for _, c := range []*prometheus.CounterVec{m.retried, m.failed, m.rescued} {
			c.WithLabelValues(k)
		}
	}
	return m
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// methods are the methods that are labels as they are; any other is "OTHER".
var methods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// ObserveRequest counts and times a request once answered (api.Server.Observe). The route is
// the pattern the mux matched (r.Pattern: "/api/v1/clusters/{id}"), "unmatched" when none did: a
// path with an id is counted under its route's pattern, never as itself.
func (m *Metrics) ObserveRequest(r *http.Request, status int, took time.Duration) {
	route := "unmatched"
	if r.Pattern != "" {
		route = patternPath(r.Pattern)
	}
	method := r.Method
	if !methods[method] {
		method = "OTHER"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, method).Observe(took.Seconds())
}

// patternPath is a mux pattern's path: "GET /api/v1/clusters/{id}" is "/api/v1/clusters/{id}".
func patternPath(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[i:]
		}
	}
	return p
}

// kind is a job kind's label value.
func (m *Metrics) kind(k string) string {
	if v, ok := m.jobKinds[k]; ok {
		return v
	}
	return "other"
}

// Rescued counts a job of kind k given back to the queue (reconcile.Rescuer's Rescued).
func (m *Metrics) Rescued(k string) { m.rescued.WithLabelValues(m.kind(k)).Inc() }
