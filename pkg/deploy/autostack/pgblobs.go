package autostack

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pkg/errors"
)

// pgBlobs is a PostgreSQL backend's store: the Pulumi CLI keeps each blob as a row (key, data) of
// one table, pulumi_state unless the URL's table parameter names another, the blob's bytes in
// base64 as data's "data" (pkg/backend/diy/postgres in pulumi/pulumi v3.259.0: NewPostgresBucket,
// schema.sql, blobData, NewRangeReader), each key after the URL's path, the database's name
// ("fleet/.pulumi/meta.yaml": pkg/backend/diy/backend.go New, blob.PrefixedBucket).
type pgBlobs struct {
	pool   *pgxpool.Pool
	table  string // quoted
	prefix string
}

// openTable connects to the backend's database as the CLI does, its own table parameter taken out
// of the URL.
func openTable(ctx context.Context, backend string) (*pgBlobs, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, errors.New("the PostgreSQL backend's URL does not parse")
	}
	q := u.Query()
	table := q.Get("table")
	if table == "" {
		table = "pulumi_state"
	}
	q.Del("table")
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		return nil, errors.Wrap(err, "connect to the PostgreSQL backend")
	}
	prefix := strings.TrimLeft(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &pgBlobs{pool: pool, table: pgx.Identifier{table}.Sanitize(), prefix: prefix}, nil
}

func (p *pgBlobs) read(ctx context.Context, key string) ([]byte, error) {
	var blob struct {
		Data []byte `json:"data"` // base64 in JSON, as encoding/json reads a []byte
	}
	var text string
	err := p.pool.QueryRow(ctx, "SELECT data::text FROM "+p.table+" WHERE key = $1", p.prefix+key).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errors.Wrap(fs.ErrNotExist, key)
	}
	if err != nil {
		return nil, errors.Wrapf(err, "read %s from the PostgreSQL backend", key)
	}
	if err := json.Unmarshal([]byte(text), &blob); err != nil {
		return nil, errors.Wrapf(err, "read %s from the PostgreSQL backend", key)
	}
	return blob.Data, nil
}

func (p *pgBlobs) list(ctx context.Context, dir string) ([]string, error) {
	prefix := p.prefix + dir + "/"
	like := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix) + "%"
	rows, err := p.pool.Query(ctx, "SELECT key FROM "+p.table+" WHERE key LIKE $1", like)
	if err != nil {
		return nil, errors.Wrapf(err, "list %s in the PostgreSQL backend", dir)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, errors.Wrapf(err, "list %s in the PostgreSQL backend", dir)
	}
	var names []string
	for _, k := range keys {
		// Only the blobs directly under dir, as a folder lists them.
		if name := strings.TrimPrefix(k, prefix); !strings.Contains(name, "/") {
			names = append(names, name)
		}
	}
	return names, nil
}
