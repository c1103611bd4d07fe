package autostack

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"

	"github.com/pkg/errors"
)

// The Pulumi CLI makes its PostgreSQL backend's table every time it opens the backend, with
// CREATE TABLE IF NOT EXISTS (pkg/backend/diy/postgres, schema.sql and NewPostgresBucket, in
// pulumi/pulumi v3.259.0). PostgreSQL does not make that statement safe against itself: two
// sessions that both find the table missing both make it, and the second fails on the catalog's
// unique index ("duplicate key value violates unique constraint pg_type_typname_nsp_index").
// The stacks of a fleet open the backend together, so on a database nothing was deployed to yet
// one stack in a few failed at "select the stack". Before the CLI first opens the backend,
// clusterplane makes the table itself, one session at a time: once it exists, the CLI's statement
// does nothing.

// plainTable is a table name the CLI's statement and this file's mean the same by: the CLI writes
// the name into its SQL unquoted, so PostgreSQL folds it to lower case. Any other name (quoted,
// in a schema) is left to the CLI.
var plainTable = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// prepareTable makes a PostgreSQL backend's table before the CLI first opens the backend; other
// backends need nothing. A failure is said and tried again at the next open.
func (b *Backend) prepareTable(ctx context.Context) error {
	if !isPostgres(b.url) {
		return nil
	}
	b.tableMu.Lock()
	defer b.tableMu.Unlock()
	if b.tableMade {
		return nil
	}
	if err := makeTable(ctx, b.url); err != nil {
		// Named as the CLI names a backend it cannot open: the URL, its password redacted.
		return b.redactor().Error(errors.Wrapf(err, "make the PostgreSQL backend's table in %s", b.redactor().String(b.url)))
	}
	b.tableMade = true
	return nil
}

// makeTable makes the backend's table as the CLI would, under a transaction's advisory lock so
// that other clusterplane processes on the database wait for it rather than race it.
func makeTable(ctx context.Context, backend string) error {
	db, table, err := openPostgres(backend)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if !plainTable.MatchString(table) {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", tableKey(table)); err != nil {
		return err
	}
	// The CLI's statement needs the right to create in the schema it would create the table in
	// (the first of the search path), and PostgreSQL checks that right before it looks for the
	// table: a role that may use a table made for it, but not create there, fails every open
	// of the CLI ("permission denied for schema", 42501). Said here, with the grant that mends it.
	var exists, mayCreate bool
	var schema, user string
	if err := tx.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL, coalesce(current_schema(), ''), "+
		"current_schema() IS NOT NULL AND has_schema_privilege(current_schema(), 'CREATE'), current_user", table).
		Scan(&exists, &schema, &mayCreate, &user); err != nil {
		return err
	}
	if !mayCreate {
		return &tableRightError{schema: schema, user: user, table: table}
	}
	if exists {
		return nil
	}
	// The CLI's columns and index, as its schema.sql makes them: the key, the blob as JSON
	// ({"data": base64}, pgblobs.go), when it was written, and an index for listing by prefix.
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+
		" (key TEXT PRIMARY KEY, data JSON NOT NULL, updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now())"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS "+table+"_key_prefix_idx ON "+table+" (key text_pattern_ops)"); err != nil {
		return err
	}
	return tx.Commit()
}

// tableRightError says that the backend's user may not create tables where the CLI makes its own.
type tableRightError struct{ schema, user, table string }

func (e *tableRightError) Error() string {
	if e.schema == "" {
		return "the PostgreSQL backend's search path names no schema that exists, so the Pulumi CLI has nowhere to keep its table"
	}
	return fmt.Sprintf("the PostgreSQL backend's user %s may not create tables in schema %s, and the Pulumi CLI asks to "+
		"each time it opens the backend (CREATE TABLE IF NOT EXISTS %s), even when the table is there: "+
		"grant it that right (GRANT CREATE ON SCHEMA %s TO %s)", e.user, e.schema, e.table, e.schema, e.user)
}

// tableKey is the advisory lock key of making the table: apart from the stacks' keys
// (advisoryKey), and from other programs' by coming from a digest.
func tableKey(table string) int64 {
	sum := sha256.Sum256([]byte("clusterplane make the backend's table\x00" + table))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}
