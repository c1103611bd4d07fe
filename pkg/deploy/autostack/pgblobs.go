package autostack

import (
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"net/url"
	"strings"

	"github.com/lib/pq"
	"github.com/pkg/errors"
)

// isPostgres tells whether a backend's URL names a PostgreSQL database.
func isPostgres(backend string) bool {
	return strings.HasPrefix(backend, "postgres://") || strings.HasPrefix(backend, "postgresql://")
}

// openPostgres connects to a PostgreSQL backend's database as the Pulumi CLI does, with the URL's
// table parameter (Pulumi's, not libpq's) taken out and returned: pulumi_state unless it names
// another (pkg/backend/diy/postgres in pulumi/pulumi v3.259.0, NewPostgresBucket).
func openPostgres(backend string) (db *sql.DB, table string, err error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, "", errors.New("the PostgreSQL backend's URL does not parse")
	}
	q := u.Query()
	table = q.Get("table")
	if table == "" {
		table = "pulumi_state"
	}
	q.Del("table")
	u.RawQuery = q.Encode()
	connector, err := pq.NewConnector(u.String())
	if err != nil {
		// pq's words about a URL may quote it, password and all: said without them.
		return nil, "", errors.New("the PostgreSQL backend's URL is not one libpq takes")
	}
	return sql.OpenDB(connector), table, nil
}

// pgBlobs is a PostgreSQL backend's store: the Pulumi CLI keeps each blob as a row (key, data) of
// its table, the blob's bytes in base64 as data's "data" (schema.sql, blobData, NewRangeReader
// there), each key after the URL's path, the database's name ("fleet/.pulumi/meta.yaml":
// pkg/backend/diy/backend.go New, blob.PrefixedBucket).
type pgBlobs struct {
	db     *sql.DB
	table  string // quoted
	prefix string
}

// openTable opens a PostgreSQL backend's store; it connects on the first read.
func openTable(backend string) (*pgBlobs, error) {
	db, table, err := openPostgres(backend)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(backend) // parsed once already
	prefix := strings.TrimLeft(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if plainTable.MatchString(table) {
		// The CLI writes the name unquoted, which PostgreSQL folds to lower case (pgtable.go).
		table = strings.ToLower(table)
	}
	return &pgBlobs{db: db, table: pq.QuoteIdentifier(table), prefix: prefix}, nil
}

func (p *pgBlobs) read(ctx context.Context, key string) ([]byte, error) {
	var text string
	err := p.db.QueryRowContext(ctx, "SELECT data::text FROM "+p.table+" WHERE key = $1", p.prefix+key).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errors.Wrap(fs.ErrNotExist, key)
	}
	if err != nil {
		return nil, errors.Wrapf(err, "read %s from the PostgreSQL backend", key)
	}
	var blob struct {
		Data []byte `json:"data"` // base64 in JSON, as encoding/json reads a []byte
	}
	if err := json.Unmarshal([]byte(text), &blob); err != nil {
		return nil, errors.Wrapf(err, "read %s from the PostgreSQL backend", key)
	}
	return blob.Data, nil
}

func (p *pgBlobs) remove(ctx context.Context, key string) error {
	_, err := p.db.ExecContext(ctx, "DELETE FROM "+p.table+" WHERE key = $1", p.prefix+key)
	return errors.Wrapf(err, "remove %s from the PostgreSQL backend", key)
}

func (p *pgBlobs) list(ctx context.Context, dir string) ([]string, error) {
	return p.named(ctx, dir, "")
}

// named asks for the rows of the names that start with prefix alone: one stack's, not every
// stack's of the folder.
func (p *pgBlobs) named(ctx context.Context, dir, name string) ([]string, error) {
	prefix := p.prefix + dir + "/"
	like := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix+name) + "%"
	rows, err := p.db.QueryContext(ctx, "SELECT key FROM "+p.table+" WHERE key LIKE $1", like)
	if err != nil {
		return nil, errors.Wrapf(err, "list %s in the PostgreSQL backend", dir)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			return nil, errors.Wrapf(err, "list %s in the PostgreSQL backend", dir)
		}
		// Only the blobs directly under dir, as a folder lists them.
		if name := strings.TrimPrefix(key, prefix); !strings.Contains(name, "/") {
			names = append(names, name)
		}
	}
	return names, errors.Wrapf(rows.Err(), "list %s in the PostgreSQL backend", dir)
}
