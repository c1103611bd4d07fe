package metrics

import (
	"context"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Jobs is River's worker middleware that times each job this replica runs and counts how it
// ended: clusterplane_reconcile_duration_seconds, clusterplane_jobs_retried_total and
// clusterplane_jobs_failed_total.
type Jobs struct {
	river.MiddlewareDefaults
	M *Metrics
}

// Work runs the job and records it.
func (j *Jobs) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	start := time.Now()
	err := doInner(ctx)
	kind, outcome := j.M.kind(job.Kind), reconcile.Outcome(job, err)
	j.M.reconciles.WithLabelValues(kind, outcome).Observe(time.Since(start).Seconds())
	switch outcome {
	case "retried":
		j.M.retried.WithLabelValues(kind).Inc()
	case "failed":
		j.M.failed.WithLabelValues(kind).Inc()
	}
	return err
}
