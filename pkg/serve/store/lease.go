package store

import (
	"context"
	"time"

	"github.com/pkg/errors"
)

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
func (s *Store) MigrateLeases(ctx context.Context) error {
	d := s.dialect
	d.schema = leaseSchema
	return errors.Wrap(d.migrate(ctx, s.DB, nil), "create the job leases' table")
}

// Renew takes or extends the lease l until its Expires. held is false when a newer attempt of
// the job holds it: this attempt's worker was taken for dead, and the job given to another.
func (s *Store) Renew(ctx context.Context, l Lease) (held bool, err error) {
	res, err := s.DB.ExecContext(ctx, `INSERT INTO clusterplane_job_leases (job_id, attempt, object_id, replica, expires_ms, done)
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
func (s *Store) Release(ctx context.Context, jobID int64, attempt int) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE clusterplane_job_leases SET done = true WHERE job_id = $1 AND attempt = $2`, jobID, attempt)
	return errors.Wrapf(err, "release the lease of job %d", jobID)
}

// DropLease drops the lease l read, of a job no longer running, if it is still done or run out
// at now: not if the job runs again meanwhile (after a snooze, with the same attempt).
func (s *Store) DropLease(ctx context.Context, l Lease, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM clusterplane_job_leases WHERE job_id = $1 AND attempt = $2
		AND (done OR expires_ms < $3)`, l.JobID, l.Attempt, now.UnixMilli())
	return errors.Wrapf(err, "drop the lease of job %d", l.JobID)
}

// Leases are every lease held or left, by job.
func (s *Store) Leases(ctx context.Context) (map[int64]Lease, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT job_id, attempt, object_id, replica, expires_ms, done FROM clusterplane_job_leases`)
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
func (s *Store) LeasedElsewhere(ctx context.Context, objectID string, jobID int64) (bool, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM clusterplane_job_leases WHERE object_id = $1 AND job_id <> $2 AND NOT done`,
		objectID, jobID).Scan(&n)
	return n > 0, errors.Wrap(err, "read the object's job leases")
}
