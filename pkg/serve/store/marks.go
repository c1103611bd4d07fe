package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/pkg/errors"
)

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
func (s *Store) MarkStack(ctx context.Context, id, stack string, version int) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO clusterplane_stack_marks (object_id, stack, version, lost, updated_at)
		VALUES ($1, $2, $3, '', $4) ON CONFLICT (object_id) DO UPDATE SET stack = excluded.stack,
		version = excluded.version, lost = '', updated_at = excluded.updated_at`, id, stack, version, time.Now().UTC())
	return errors.Wrap(err, "record the stack's update as the object's")
}

// LoseStack records why the object's stack is no longer its own; "" records that it is again
// (a check found it so). An object without a mark is left as it is.
func (s *Store) LoseStack(ctx context.Context, id, why string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE clusterplane_stack_marks SET lost = $2, updated_at = $3 WHERE object_id = $1`,
		id, why, time.Now().UTC())
	return errors.Wrap(err, "record whose the stack is")
}

// MarkOf reads the object's stack mark; false when no worker has recorded one (an object whose
// stack was deployed before marks were kept, or never deployed).
func (s *Store) MarkOf(ctx context.Context, id string) (StackMark, bool, error) {
	return markOf(ctx, s.DB, id)
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
