package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/pkg/errors"
)

// Jobs keeps what the workers record of the jobs they run beside River's queue: each job's lease
// (which worker runs it, until when), and each object's stack mark (the last update a worker
// made on its stack, and whether the stack is still the object's).
type Jobs struct{ s *Store }

// Jobs is the store's record of the workers' jobs.
func (s *Store) Jobs() Jobs { return Jobs{s} }

// Lease is a worker's claim on the job it runs: renewed every few seconds while the job runs,
// so that a job whose lease has run out is known to have lost its worker (a replica killed,
// its machine lost) and can be given to another at once, rather than after the job's longest
// possible run.
type Lease struct {
	// JobID and Attempt are River's: a newer attempt of the job takes the lease over.
	JobID   int64
	Attempt int
	// ObjectID is the object the job works on ("" for a job of none, such as a sweep).
	ObjectID string
	// Replica is the River client that runs the job, for the logs.
	Replica string
	Expires time.Time
	// Done is set once the worker is done with the job, while River records how it ended: the
	// job, still running for a moment, is not taken for dead.
	Done bool
}

// leaseSchema is the same text on both databases: times are kept as Unix milliseconds, which
// both compare as numbers.
const leaseSchema = `
CREATE TABLE IF NOT EXISTS clusterplane_job_leases (
	job_id bigint PRIMARY KEY,
	attempt integer NOT NULL,
	object_id text NOT NULL,
	replica text NOT NULL,
	expires_ms bigint NOT NULL,
	done boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS clusterplane_job_leases_object ON clusterplane_job_leases (object_id);
`

// MigrateLeases creates the leases' table when it is missing.
func (j Jobs) MigrateLeases(ctx context.Context) error {
	d := j.s.dialect
	d.schema = leaseSchema
	return errors.Wrap(d.migrate(ctx, j.s.DB, nil), "create the job leases' table")
}

// Renew takes or extends the lease l until its Expires. held is false when a newer attempt of
// the job holds it: this attempt's worker was taken for dead, and the job given to another.
func (j Jobs) Renew(ctx context.Context, l Lease) (held bool, err error) {
	res, err := j.s.DB.ExecContext(ctx, `INSERT INTO clusterplane_job_leases (job_id, attempt, object_id, replica, expires_ms, done)
		VALUES ($1, $2, $3, $4, $5, false)
		ON CONFLICT (job_id) DO UPDATE SET attempt = excluded.attempt, object_id = excluded.object_id,
			replica = excluded.replica, expires_ms = excluded.expires_ms, done = false
		WHERE clusterplane_job_leases.attempt <= excluded.attempt`,
		l.JobID, l.Attempt, l.ObjectID, l.Replica, l.Expires.UnixMilli())
	if err != nil {
		return false, errors.Wrapf(err, "renew the lease of job %d", l.JobID)
	}
	n, err := res.RowsAffected()
	return n > 0, errors.Wrapf(err, "renew the lease of job %d", l.JobID)
}

// Release marks the lease of the job's attempt done, once its worker is done with it. It is
// dropped (DropLease) once River no longer has the job running.
func (j Jobs) Release(ctx context.Context, jobID int64, attempt int) error {
	_, err := j.s.DB.ExecContext(ctx, `UPDATE clusterplane_job_leases SET done = true WHERE job_id = $1 AND attempt = $2`, jobID, attempt)
	return errors.Wrapf(err, "release the lease of job %d", jobID)
}

// DropLease drops the lease l read, of a job no longer running, if it is still done or run out
// at now: not if the job runs again meanwhile (after a snooze, with the same attempt).
func (j Jobs) DropLease(ctx context.Context, l Lease, now time.Time) error {
	_, err := j.s.DB.ExecContext(ctx, `DELETE FROM clusterplane_job_leases WHERE job_id = $1 AND attempt = $2
		AND (done OR expires_ms < $3)`, l.JobID, l.Attempt, now.UnixMilli())
	return errors.Wrapf(err, "drop the lease of job %d", l.JobID)
}

// Leases are every lease held or left, by job.
func (j Jobs) Leases(ctx context.Context) (map[int64]Lease, error) {
	rows, err := j.s.DB.QueryContext(ctx, `SELECT job_id, attempt, object_id, replica, expires_ms, done FROM clusterplane_job_leases`)
	if err != nil {
		return nil, errors.Wrap(err, "read the job leases")
	}
	defer rows.Close()
	out := map[int64]Lease{}
	for rows.Next() {
		var l Lease
		var ms int64
		if err := rows.Scan(&l.JobID, &l.Attempt, &l.ObjectID, &l.Replica, &ms, &l.Done); err != nil {
			return nil, errors.Wrap(err, "read the job leases")
		}
		l.Expires = time.UnixMilli(ms)
		out[l.JobID] = l
	}
	return out, errors.Wrap(rows.Err(), "read the job leases")
}

// LeasedElsewhere tells whether another job than jobID holds, or left, a lease on the object:
// a job still running on it, or one whose worker died and that is about to be taken up again.
func (j Jobs) LeasedElsewhere(ctx context.Context, objectID string, jobID int64) (bool, error) {
	var n int
	err := j.s.DB.QueryRowContext(ctx, `SELECT count(*) FROM clusterplane_job_leases WHERE object_id = $1 AND job_id <> $2 AND NOT done`,
		objectID, jobID).Scan(&n)
	return n > 0, errors.Wrap(err, "read the object's job leases")
}

// StackMark is what the store knows of an object's stack beyond StackOwned: the last update a
// worker made on it (each such update carries the object's mark in the stack's history), and,
// once a check found the stack is no longer the object's (destroyed and made again outside the
// API), why. The API refuses to delete such an object, and no worker changes or destroys that
// stack.
type StackMark struct {
	// Stack is the stack's key (<project>/<stack>).
	Stack string
	// Version is the number, in the stack's history, of the last update a worker made.
	Version int
	// Lost says why the stack is no longer the object's; "" while it is.
	Lost string
}

// MarkStack records that the object's worker made update version of stack: the stack is the
// object's, whatever a check said before.
func (j Jobs) MarkStack(ctx context.Context, id, stack string, version int) error {
	_, err := j.s.DB.ExecContext(ctx, `INSERT INTO clusterplane_stack_marks (object_id, stack, version, lost, updated_at)
		VALUES ($1, $2, $3, '', $4) ON CONFLICT (object_id) DO UPDATE SET stack = excluded.stack,
		version = excluded.version, lost = '', updated_at = excluded.updated_at`, id, stack, version, time.Now().UTC())
	return errors.Wrap(err, "record the stack's update as the object's")
}

// LoseStack records why the object's stack is no longer its own; "" records that it is again
// (a check found it so). An object without a mark is left as it is.
func (j Jobs) LoseStack(ctx context.Context, id, why string) error {
	_, err := j.s.DB.ExecContext(ctx, `UPDATE clusterplane_stack_marks SET lost = $2, updated_at = $3 WHERE object_id = $1`,
		id, why, time.Now().UTC())
	return errors.Wrap(err, "record whose the stack is")
}

// MarkOf reads the object's stack mark; false when no worker has recorded one (an object whose
// stack was deployed before marks were kept, or never deployed).
func (j Jobs) MarkOf(ctx context.Context, id string) (StackMark, bool, error) {
	return markOf(ctx, j.s.DB, id)
}

// LostStack reads, in tx, the object's stack mark: DELETE's refusal reads it in its own
// transaction.
func LostStack(ctx context.Context, tx *sql.Tx, id string) (StackMark, bool, error) {
	return markOf(ctx, tx, id)
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func markOf(ctx context.Context, q querier, id string) (StackMark, bool, error) {
	var m StackMark
	err := q.QueryRowContext(ctx, `SELECT stack, version, lost FROM clusterplane_stack_marks WHERE object_id = $1`, id).
		Scan(&m.Stack, &m.Version, &m.Lost)
	if errors.Is(err, sql.ErrNoRows) {
		return StackMark{}, false, nil
	}
	if err != nil {
		return StackMark{}, false, errors.Wrap(err, "read the object's stack mark")
	}
	return m, true, nil
}
