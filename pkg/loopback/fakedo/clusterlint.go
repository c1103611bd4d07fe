package fakedo

import (
	"net/http"
	"slices"
	"time"

	"github.com/digitalocean/godo"
)

// lintRun is one clusterlint run: what the cluster's checks found when it was asked for.
type lintRun struct {
	clusterID   string
	requested   time.Time
	diagnostics []*godo.ClusterlintDiagnostic
}

// clusterlint runs DigitalOcean's clusterlint on a cluster, as the fake was told what it finds.
type clusterlint struct{ *store }

// SetClusterlint sets what DigitalOcean's clusterlint finds on the cluster from now on (none by
// default): the diagnostics of the runs POST /v2/kubernetes/clusters/{id}/clusterlint starts.
func (d *DO) SetClusterlint(clusterID string, diagnostics []godo.ClusterlintDiagnostic) {
	d.s.set(func() {
		if d.s.lint == nil {
			d.s.lint = map[string][]godo.ClusterlintDiagnostic{}
		}
		d.s.lint[clusterID] = slices.Clone(diagnostics)
	})
}

// run starts a run, which the fake completes at once: 202 with its run_id, as
// DigitalOcean answers.
func (d clusterlint) run(w http.ResponseWriter, id string) {
	if _, ok := d.clusters[id]; !ok {
		d.notFound(w)
		return
	}
	run := &lintRun{clusterID: id, requested: now(), diagnostics: []*godo.ClusterlintDiagnostic{}}
	for _, dg := range d.lint[id] {
		dg := clone(dg)
		run.diagnostics = append(run.diagnostics, &dg)
	}
	runID := newUUID()
	if d.lintRuns == nil {
		d.lintRuns = map[string]*lintRun{}
	}
	d.lintRuns[runID] = run
	d.lastLint = runID
	writeJSON(w, http.StatusAccepted, map[string]any{"run_id": runID})
}

// results are a run's diagnostics: the run_id asked for, or the cluster's latest run.
// 404 for a run of another cluster or none.
func (d clusterlint) results(w http.ResponseWriter, r *http.Request, id string) {
	runID := r.URL.Query().Get("run_id")
	if runID == "" {
		runID = d.lastLint
	}
	run, ok := d.lintRuns[runID]
	if !ok || run.clusterID != id {
		d.notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"run_id": runID, "requested_at": run.requested, "completed_at": run.requested, "diagnostics": run.diagnostics,
	})
}
