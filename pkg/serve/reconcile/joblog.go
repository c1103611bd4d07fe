package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
	"github.com/clusterplane/clusterplane/pkg/serve/tracing"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// JobLog is River's worker middleware that puts the job's id, kind, attempt and object in the
// context, so that every line logged while the job runs carries them (logctx; the worker adds
// the stack once it knows it), logs how each job ended, and makes the job's span (package
// tracing; a no-op while traces are off).
type JobLog struct {
	river.MiddlewareDefaults
	Log *slog.Logger
}

// Work runs the job with its attributes in the context.
func (l *JobLog) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	attrs := []slog.Attr{slog.Int64("job_id", job.ID), slog.String("job_kind", job.Kind), slog.Int("attempt", job.Attempt)}
	if id := objectOf(job); id != "" {
		attrs = append(attrs, slog.String("object_id", id))
	}
	ctx, span := tracing.Tracer().Start(logctx.With(ctx, attrs...), job.Kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.Int64("job_id", job.ID), attribute.String("object_id", objectOf(job))))
	defer span.End()
	start := time.Now()
	err := doInner(ctx)
	span.SetAttributes(attribute.String("outcome", Outcome(job, err)))
	if l.Log != nil {
		level, outcome := slog.LevelInfo, Outcome(job, err)
		if outcome == "retried" || outcome == "failed" {
			level = slog.LevelWarn
		}
		l.Log.LogAttrs(ctx, level, "job ended", slog.String("outcome", outcome), slog.Duration("duration", time.Since(start)))
	}
	return err
}

// Outcome is how a job's attempt ended, as River will record it: completed; handed_back (its
// replica stopped and the shutdown grace ran out: queued again, the attempt not counted against
// it, and no failure); retried (it failed and has attempts left); failed (its last attempt);
// cancelled (its worker gave up on it); snoozed (asked to run again later).
func Outcome(job *rivertype.JobRow, err error) string {
	var snooze *rivertype.JobSnoozeError
	var cancel *rivertype.JobCancelError
	switch {
	case err == nil:
		return "completed"
	case errors.Is(err, ErrHandedBack):
		return "handed_back"
	case errors.As(err, &snooze):
		return "snoozed"
	case errors.As(err, &cancel):
		return "cancelled"
	case job.Attempt >= job.MaxAttempts:
		return "failed"
	}
	return "retried"
}
