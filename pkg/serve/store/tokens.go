package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/pkg/errors"
)

// AddToken stores an API token's record: its hash, never its text (auth.NewToken).
func (s *Store) AddToken(ctx context.Context, rec auth.TokenRecord) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO clusterplane_tokens (id, name, role, hash, created_at, controller) VALUES ($1, $2, $3, $4, $5, $6)`,
		rec.ID, rec.Name, string(rec.Role), rec.Hash, time.Now().UTC(), rec.Controller)
	return errors.Wrap(err, "store the token")
}

// TokenByID reads a token's record (auth.TokenStore).
func (s *Store) TokenByID(ctx context.Context, id string) (auth.TokenRecord, error) {
	var rec auth.TokenRecord
	var role string
	var revoked *time.Time
	err := s.DB.QueryRowContext(ctx, `SELECT id, name, role, hash, revoked_at, controller FROM clusterplane_tokens WHERE id = $1`, id).
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

// Tokens lists every token, oldest first.
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, name, role, controller, created_at, revoked_at FROM clusterplane_tokens ORDER BY created_at, id`)
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
func (s *Store) RevokeToken(ctx context.Context, idOrName string) error {
	var n int
	if err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM clusterplane_tokens WHERE id <> $1 AND name = $1`, idOrName).Scan(&n); err != nil {
		return errors.Wrap(err, "find the token")
	}
	if n > 1 {
		return errors.Errorf("%d tokens are named %q: revoke one by its ID (serve token list)", n, idOrName)
	}
	tag, err := s.DB.ExecContext(ctx, `UPDATE clusterplane_tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 OR name = $1`, idOrName, time.Now().UTC())
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
