package reconcile

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pkg/errors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// The leases' defaults: a job whose worker died is queued again within LeaseTTL plus
// RescueEvery (50 s), well before anyone would wonder why a write is still Progressing, while a
// live worker has three chances to renew before its lease runs out.
const (
	LeaseRenew  = 10 * time.Second
	LeaseTTL    = 40 * time.Second
	RescueEvery = 10 * time.Second
)

// errLeaseLost ends a job whose lease a newer attempt took: this worker was taken for dead (it
// could not reach the database for longer than the lease), and the job is another's now.
var errLeaseLost = errors.New("the job's lease was taken by a newer attempt: its worker was taken for dead")

// Leases is River's middleware that keeps a lease on every job while a worker of this replica
// runs it. River alone takes a job for dead only once it has run longer than any job may
// (--rescue-after, hours for a deploy); the lease tells a dead worker within a minute (Rescuer).
type Leases struct {
	river.MiddlewareDefaults
	Store *store.Store
	// Replica names this replica's River client in the leases.
	Replica string
	// Renew is how often the lease is renewed; TTL how long each renewal holds it.
	Renew, TTL time.Duration
	Log        *slog.Logger
	// HandBack, when begun, ends the running jobs and hands them back to the queue.
	HandBack *HandBack
}

// Work holds the job's lease while the job runs, and lets it go when it ends.
func (l *Leases) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	lease := store.Lease{JobID: job.ID, Attempt: job.Attempt, ObjectID: objectOf(job), Replica: l.Replica}
	renew := func(ctx context.Context) (bool, error) {
		lease.Expires = time.Now().Add(l.TTL)
		return l.Store.Jobs().Renew(ctx, lease)
	}
	if held, err := renew(ctx); err != nil || !held {
		if err == nil {
			err = errLeaseLost
		}
		return errors.Wrap(err, "take the job's lease")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ticker := time.NewTicker(l.Renew)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.HandBack.begun():
				cancel(ErrHandedBack)
				return
			case <-ticker.C:
			}
			held, err := renew(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				// The next renewal may get through; the lease holds a few renewals' time.
				if l.Log != nil {
					l.Log.WarnContext(ctx, "could not renew a job's lease", "job", job.ID, "kind", job.Kind, "error", err.Error())
				}
			case err == nil && !held:
				cancel(errLeaseLost)
				return
			}
		}
	}()
	err := doInner(ctx)
	cancel(nil)
	wg.Wait()
	if rerr := l.Store.Jobs().Release(context.WithoutCancel(ctx), job.ID, job.Attempt); rerr != nil && l.Log != nil {
		// A lease left behind runs out, and the job, ended, is not rescued for it.
		l.Log.WarnContext(ctx, "could not release a job's lease", "job", job.ID, "kind", job.Kind, "error", rerr.Error())
	}
	if err == nil && errors.Is(context.Cause(ctx), errLeaseLost) {
		err = errLeaseLost
	}
	if err != nil && handedBack(ctx) {
		// Whatever the interrupted engine made the worker say, the job is not over: River records
		// a failed attempt, and HandBack.Requeue queues it again at once.
		l.HandBack.record(job)
		err = ErrHandedBack
	}
	return err
}

// objectOf is the object a job works on, from its arguments (Args, DriftArgs): "" for none.
func objectOf(job *rivertype.JobRow) string {
	var args struct {
		ObjectID string `json:"object_id"`
	}
	_ = json.Unmarshal(job.EncodedArgs, &args) // a job of no object has none
	return args.ObjectID
}

// Rescuer gives back to the queue the running jobs whose worker died: their lease ran out, or
// was never taken though the job started a lease's time ago. Every replica runs one, a replica
// without workers (--workers 0) too; two rescuing one job at once rescue it once (River's rescue
// changes only a running job of that attempt).
type Rescuer struct {
	Store *store.Store
	River *river.Client[*sql.Tx]
	// TTL is the leases'; Every how often the running jobs are looked at.
	TTL, Every time.Duration
	Log        *slog.Logger
	// Rescued, when set, is told the kind of each job given back (the metrics count them).
	Rescued func(kind string)
}

// Run looks for dead workers' jobs every r.Every until ctx ends.
func (r *Rescuer) Run(ctx context.Context) {
	ticker := time.NewTicker(r.Every)
	defer ticker.Stop()
	for {
		if _, err := r.Once(ctx); err != nil && ctx.Err() == nil && r.Log != nil {
			r.Log.WarnContext(ctx, "could not look for jobs whose worker died", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Once gives back the running jobs whose worker is dead, and says which: as River's own rescuer
// does, an error is recorded for the attempt, but the job is available at once (not after a
// retry's backoff) and in the place it had in the queue (placeOf). Their next attempt is a
// retry (Attempt > 1), which mends what the dead worker left on the stack.
func (r *Rescuer) Once(ctx context.Context) ([]int64, error) {
	leases, err := r.Store.Jobs().Leases(ctx)
	if err != nil {
		return nil, err
	}
	running, err := r.River.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRunning).First(10000))
	if err != nil {
		return nil, errors.Wrap(err, "list the running jobs")
	}
	now := time.Now()
	alive := map[int64]bool{}
	var rescued []int64
	for _, job := range running.Jobs {
		alive[job.ID] = true
		why := r.dead(job, leases, now)
		if why == "" {
			continue
		}
		if err := r.rescue(ctx, job, why, now); err != nil {
			return rescued, err
		}
		rescued = append(rescued, job.ID)
		if r.Rescued != nil {
			r.Rescued(job.Kind)
		}
		if r.Log != nil {
			r.Log.WarnContext(ctx, "a job's worker died; the job is queued again", "job", job.ID, "kind", job.Kind, "attempt", job.Attempt, "why", why)
		}
	}
	for id, l := range leases {
		// A lease of a job no longer running (ended while its release failed, or removed from the
		// queue) only keeps the object's next job waiting (LeasedElsewhere): it goes once done or
		// run out.
		if !alive[id] && (l.Done || l.Expires.Before(now)) {
			if err := r.Store.Jobs().DropLease(ctx, l, now); err != nil {
				return rescued, err
			}
		}
	}
	return rescued, nil
}

// dead says why the job's worker is dead, "" when it may be alive.
func (r *Rescuer) dead(job *rivertype.JobRow, leases map[int64]store.Lease, now time.Time) string {
	if l, ok := leases[job.ID]; ok && l.Attempt == job.Attempt {
		// A done lease too: it is done a moment before River records the job's end, and has
		// most of its time left then; run out, the replica died in that moment.
		if l.Expires.Before(now) {
			return "its worker (" + l.Replica + ") stopped renewing its lease at " + l.Expires.UTC().Format(time.RFC3339)
		}
		return ""
	}
	// No lease for this attempt: its worker takes one before it starts, so one that has not
	// within a lease's time died first.
	if job.AttemptedAt != nil && job.AttemptedAt.Before(now.Add(-r.TTL)) {
		return "its worker started it at " + job.AttemptedAt.UTC().Format(time.RFC3339) + " and never took its lease"
	}
	return ""
}

// placeOf is when the rescued job is queued for: the time it was queued for before its worker
// took it, never later than now (a job is only taken once due, but a clock may disagree).
func placeOf(job *rivertype.JobRow, now time.Time) time.Time {
	if job.ScheduledAt.IsZero() || job.ScheduledAt.After(now) {
		return now.UTC()
	}
	return job.ScheduledAt.UTC()
}

// rescue makes the job available again, keeping its place in the queue, unless it is no longer the attempt that was found dead
// (ended meanwhile, or taken up again by another replica's rescuer).
func (r *Rescuer) rescue(ctx context.Context, job *rivertype.JobRow, why string, now time.Time) error {
	e, err := json.Marshal(rivertype.AttemptError{At: now.UTC(), Attempt: job.Attempt, Error: "rescued: " + why})
	if err != nil {
		return errors.Wrap(err, "record why the job was rescued")
	}
	horizon := now
	if job.AttemptedAt != nil {
		horizon = job.AttemptedAt.Add(time.Millisecond)
	}
	// River takes the available jobs by priority, then scheduled_at, then id. Queued at now, the
	// job would wait behind every job queued while it ran, minutes behind a backlog while its
	// object says Progressing; queued at its own scheduled_at, it keeps its place: it goes
	// ahead of every job queued after it, as it did before its worker died.
	_, err = r.River.Driver().GetExecutor().JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
		ID:          []int64{job.ID},
		Error:       [][]byte{e},
		FinalizedAt: []*time.Time{nil},
		ScheduledAt: []time.Time{placeOf(job, now)},
		State:       []string{string(rivertype.JobStateAvailable)},
		// River rescues a running job that attempted before this: only the attempt found dead.
		StuckHorizon: horizon,
	})
	return errors.Wrapf(err, "queue job %d again", job.ID)
}
