package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/prometheus/client_golang/prometheus"
)

// Conditions are the condition types counted by clusterplane_objects.
var Conditions = []string{"Ready", "Drifted"}

// jobStates are River's job states, each a clusterplane_jobs series (0 when none are in it).
var jobStates = []string{"available", "scheduled", "pending", "running", "retryable", "completed", "cancelled", "discarded"}

// ScrapeTimeout bounds a scrape's questions to the database.
const ScrapeTimeout = 5 * time.Second

// fleet reads the jobs and the objects from the store at each scrape.
type fleet struct {
	st         *store.Store
	controller string
	log        *slog.Logger
	jobs       *prometheus.Desc
	objects    *prometheus.Desc
	cost       *prometheus.Desc
}

// ReadFleet adds the gauges read from st at each scrape: clusterplane_jobs by state,
// clusterplane_objects by type, condition and status (as controller reported them), and
// clusterplane_fleet_monthly_cost_usd. A scrape whose database does not answer leaves them out
// and logs why.
func (m *Metrics) ReadFleet(st *store.Store, controller string, log *slog.Logger) {
	m.Registry.MustRegister(&fleet{st: st, controller: controller, log: log,
		jobs: prometheus.NewDesc("clusterplane_jobs", "The queue's jobs (every replica's) by state: available and scheduled are queued.",
			[]string{"state"}, nil),
		objects: prometheus.NewDesc("clusterplane_objects", "Objects by type (cluster, nodepool), condition (Ready, Drifted) and its status (True, False, Unknown).",
			[]string{"type", "condition", "status"}, nil),
		cost: prometheus.NewDesc("clusterplane_fleet_monthly_cost_usd", "What the deployed objects cost a month (their statuses' monthly_cost), its lower and upper bound.",
			[]string{"bound"}, nil)})
}

func (f *fleet) Describe(ch chan<- *prometheus.Desc) {
	ch <- f.jobs
	ch <- f.objects
	ch <- f.cost
}

func (f *fleet) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	states, err := f.st.Jobs().JobStates(ctx)
	if err == nil {
		for _, s := range jobStates {
			ch <- prometheus.MustNewConstMetric(f.jobs, prometheus.GaugeValue, float64(states[s]), s)
		}
	}
	fl, ferr := f.st.Statuses().Fleet(ctx, f.controller, Conditions...)
	if ferr == nil {
		for _, typ := range []string{store.Cluster, store.NodePool} {
			for _, c := range Conditions {
				for _, s := range []string{"True", "False", "Unknown"} {
					n := fl.Conditions[store.ConditionCount{ObjectType: typ, Condition: c, Status: s}]
					ch <- prometheus.MustNewConstMetric(f.objects, prometheus.GaugeValue, float64(n), typ, c, s)
				}
			}
		}
		ch <- prometheus.MustNewConstMetric(f.cost, prometheus.GaugeValue, fl.MonthlyMin, "min")
		ch <- prometheus.MustNewConstMetric(f.cost, prometheus.GaugeValue, fl.MonthlyMax, "max")
	}
	if err = cmpErr(err, ferr); err != nil && f.log != nil {
		f.log.Warn("a scrape could not read the fleet from the database", "error", err.Error())
	}
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
