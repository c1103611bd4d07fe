package reconcile

import (
	"context"
	"database/sql"
	stderrors "errors"
	"sync"

	"github.com/pkg/errors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// ErrHandedBack ends a job whose replica is stopping and whose shutdown grace ran out before the
// job did: the job goes back to the queue for another replica (or this one, started again).
var ErrHandedBack = errors.New("the replica running the job is stopping and its shutdown grace ran out: " +
	"the job was handed back to the queue")

// HandBack is a stopping replica's word to its running jobs that the shutdown grace is over: each
// job's context ends (its cause ErrHandedBack), the engine is interrupted and the stack's lock let
// go, and the job goes back to the queue. Its next attempt, on any replica, mends what the
// interrupted one left (Deployer.TakeOver), as after a kill -9, but without waiting for a lease
// to run out.
type HandBack struct {
	once sync.Once
	now  chan struct{}

	mu     sync.Mutex
	handed []*rivertype.JobRow
}

// NewHandBack is a hand-back not yet begun.
func NewHandBack() *HandBack { return &HandBack{now: make(chan struct{})} }

// Begin tells every running job to end and go back to the queue.
func (h *HandBack) Begin() { h.once.Do(func() { close(h.now) }) }

// begun is closed once Begin is called; nil (never closed) for no HandBack.
func (h *HandBack) begun() <-chan struct{} {
	if h == nil {
		return nil
	}
	return h.now
}

// record notes a job handed back, for Requeue.
func (h *HandBack) record(job *rivertype.JobRow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handed = append(h.handed, job)
}

// Requeue makes the jobs handed back available at once, once River has recorded how they ended
// (a failed attempt, queued again after the retry's backoff): another replica takes them up at
// its next fetch. The attempt handed back is not counted against the job's attempts. A job
// another replica already took up is left alone (River retries no running job).
func (h *HandBack) Requeue(ctx context.Context, client *river.Client[*sql.Tx]) error {
	h.mu.Lock()
	handed := h.handed
	h.handed = nil
	h.mu.Unlock()
	var errs []error
	for _, job := range handed {
		// One more attempt first: the hand-back is the replica's doing, not the job's failure.
		_, err := client.Driver().GetExecutor().JobUpdateFull(ctx, &riverdriver.JobUpdateFullParams{
			ID: job.ID, MaxAttemptsDoUpdate: true, MaxAttempts: job.MaxAttempts + 1})
		if err == nil {
			_, err = client.JobRetry(ctx, job.ID)
		}
		if err != nil {
			errs = append(errs, errors.Wrapf(err, "queue job %d again", job.ID))
		}
	}
	return stderrors.Join(errs...)
}

// handedBack tells whether ctx, a job's, ended because its replica handed the job back.
func handedBack(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrHandedBack)
}
