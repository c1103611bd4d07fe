package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/pkg/errors"
)

// dbOrTx runs the tokens' queries: the store's database, or a transaction of Tokens.Lock.
type dbOrTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tokens keeps the API tokens of bots and controllers: their records, each with the hash of
// its text, never the text (auth.NewToken). Its TokenTable reads and writes them through the
// database; Lock hands a change that must run alone the TokenTable of a transaction.
type Tokens struct {
	TokenTable
	s *Store
}

// Tokens is the store's API tokens.
func (s *Store) Tokens() Tokens { return Tokens{TokenTable{s.DB}, s} }

// TokenTable reads and writes the API tokens through one handle: the database (Store.Tokens),
// or a transaction of Tokens.Lock.
type TokenTable struct{ q dbOrTx }

// tokensLock is the PostgreSQL advisory lock Tokens.Lock takes: the schema's (database.go) plus
// one, so that the two are told apart in pg_locks.
const tokensLock = 7301244119

// Lock runs f on the tokens in a transaction that no other Lock runs beside, on this replica or
// any other on the database, and commits what f wrote when it returns nil. On PostgreSQL it
// holds an advisory lock for the transaction; on SQLite the transaction takes the database's
// write lock as it begins (_txlock=immediate). Either goes with the transaction, so a replica
// killed inside f keeps no one waiting. f must use tokens, not the store: on SQLite the store's
// one connection is the transaction's until it ends.
func (t Tokens) Lock(ctx context.Context, f func(ctx context.Context, tokens TokenTable) error) error {
	return t.s.inTx(ctx, func(tx *sql.Tx) error {
		if t.s.dialect.name == PostgreSQL {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, tokensLock); err != nil {
				return errors.Wrap(err, "lock the tokens")
			}
		}
		return f(ctx, TokenTable{tx})
	})
}

// AddToken stores an API token's record: its hash, never its text (auth.NewToken).
func (table TokenTable) AddToken(ctx context.Context, rec auth.TokenRecord) error {
	_, err := table.q.ExecContext(ctx, `INSERT INTO clusterplane_tokens (id, name, role, hash, created_at, controller) VALUES ($1, $2, $3, $4, $5, $6)`,
		rec.ID, rec.Name, string(rec.Role), rec.Hash, time.Now().UTC(), rec.Controller)
	return errors.Wrap(err, "store the token")
}

// TokenByID reads a token's record (auth.TokenStore).
func (table TokenTable) TokenByID(ctx context.Context, id string) (auth.TokenRecord, error) {
	var rec auth.TokenRecord
	var role string
	var revoked *time.Time
	err := table.q.QueryRowContext(ctx, `SELECT id, name, role, hash, revoked_at, controller FROM clusterplane_tokens WHERE id = $1`, id).
		Scan(&rec.ID, &rec.Name, &role, &rec.Hash, &revoked, &rec.Controller)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, auth.ErrNoToken
	}
	rec.Role, rec.Revoked = auth.Role(role), revoked != nil
	return rec, errors.Wrap(err, "read the token")
}

// Token is a token as listed: no hash.
type Token struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`

	// Controller is the controller_name a controller token reports status under; empty for
	// other roles and for controller tokens made before tokens named one (they report none).
	Controller string `json:"controller,omitempty"`
}

// List lists every token, oldest first.
func (table TokenTable) List(ctx context.Context) ([]Token, error) {
	rows, err := table.q.QueryContext(ctx, `SELECT id, name, role, controller, created_at, revoked_at FROM clusterplane_tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, errors.Wrap(err, "list the tokens")
	}
	defer rows.Close()
	out := []Token{}
	for rows.Next() {
		var t Token
		if err := rows.Scan(&t.ID, &t.Name, &t.Role, &t.Controller, &t.CreatedAt, &t.RevokedAt); err != nil {
			return nil, errors.Wrap(err, "read a token")
		}
		out = append(out, t)
	}
	return out, errors.Wrap(rows.Err(), "list the tokens")
}

// RevokeToken revokes a token by its id, or by its name when one token has it: it authenticates
// nobody from then on. Names need not be unique, and a name several tokens share is refused
// rather than revoking them all.
func (table TokenTable) RevokeToken(ctx context.Context, idOrName string) error {
	var n int
	if err := table.q.QueryRowContext(ctx, `SELECT count(*) FROM clusterplane_tokens WHERE id <> $1 AND name = $1`, idOrName).Scan(&n); err != nil {
		return errors.Wrap(err, "find the token")
	}
	if n > 1 {
		return errors.Errorf("%d tokens are named %q: revoke one by its ID (serve token list)", n, idOrName)
	}
	tag, err := table.q.ExecContext(ctx, `UPDATE clusterplane_tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 OR name = $1`, idOrName, time.Now().UTC())
	if err != nil {
		return errors.Wrap(err, "revoke the token")
	}
	revoked, err := tag.RowsAffected()
	if err != nil {
		return errors.Wrap(err, "revoke the token")
	}
	if revoked == 0 {
		return errors.Wrapf(ErrNotFound, "token %q", idOrName)
	}
	return nil
}
