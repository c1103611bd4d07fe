package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx" driver
	"github.com/pkg/errors"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The databases the store keeps its data in.
const (
	// PostgreSQL is shared by any number of replicas.
	PostgreSQL = "postgres"
	// SQLite is a file on the replica's machine: one replica, nothing to run beside it.
	SQLite = "sqlite"
)

// SQLitePrefix starts a --database-url that names an SQLite file: sqlite:serve.db,
// sqlite:///var/lib/clusterplane/serve.db.
const SQLitePrefix = "sqlite:"

// dialect is what the two databases spell differently. The queries are otherwise one text: both
// take $1-style parameters (modernc's SQLite binds $N to the N-th argument) and CAST.
type dialect struct {
	name   string
	schema string
	// forUpdate locks the rows a transaction reads before it changes them. SQLite has no row
	// locks: its transactions take the database's write lock when they begin (_txlock=immediate)
	// and the store holds one connection, so a read-compare-write is never interleaved.
	forUpdate string
	// nextVersion returns the next resource version: a sequence on PostgreSQL, so that writers
	// of different objects never wait on one another; a counter row on SQLite, whose writers
	// take turns anyway.
	nextVersion string
	// lock and unlock keep replicas starting at once from creating the tables together.
	lock, unlock string
}

var postgres = dialect{
	name:        PostgreSQL,
	schema:      postgresSchema,
	forUpdate:   " FOR UPDATE",
	nextVersion: `SELECT nextval('clusterplane_resource_version')`,
	lock:        `SELECT pg_advisory_lock(7301244118)`,
	unlock:      `SELECT pg_advisory_unlock(7301244118)`,
}

var sqliteDialect = dialect{
	name:        SQLite,
	schema:      sqliteSchema,
	nextVersion: `UPDATE clusterplane_counter SET value = value + 1 RETURNING value`,
}

// postgresSchema is the service's own tables; the queue's are River's (serve migrates them).
const postgresSchema = `
CREATE TABLE IF NOT EXISTS clusterplane_objects (
	id uuid PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('cluster', 'nodepool')),
	name text NOT NULL,
	cluster_id uuid REFERENCES clusterplane_objects (id),
	spec jsonb NOT NULL,
	generation bigint NOT NULL,
	resource_version bigint NOT NULL,
	phase text NOT NULL DEFAULT 'Pending',
	health text NOT NULL DEFAULT 'Unknown',
	deleting boolean NOT NULL DEFAULT false,
	stack_owned boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL,
	updated_at timestamptz NOT NULL,
	created_by text NOT NULL
);
ALTER TABLE clusterplane_objects ADD COLUMN IF NOT EXISTS stack_owned boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX IF NOT EXISTS clusterplane_objects_name
	ON clusterplane_objects (kind, coalesce(cluster_id, '00000000-0000-0000-0000-000000000000'), name);
CREATE INDEX IF NOT EXISTS clusterplane_objects_list ON clusterplane_objects (kind, created_at, id);
-- A cluster's pools and the status and health filters, in list order (Objects.List).
CREATE INDEX IF NOT EXISTS clusterplane_objects_cluster ON clusterplane_objects (kind, cluster_id, created_at, id);
CREATE INDEX IF NOT EXISTS clusterplane_objects_state ON clusterplane_objects (kind, phase, health, created_at, id);
-- The status filter alone and the health filter alone: with a column between the filter's and
-- created_at, a page after a cursor read and sorted every row the filter selects.
CREATE INDEX IF NOT EXISTS clusterplane_objects_phase ON clusterplane_objects (kind, phase, created_at, id);
CREATE INDEX IF NOT EXISTS clusterplane_objects_health ON clusterplane_objects (kind, health, created_at, id);
CREATE SEQUENCE IF NOT EXISTS clusterplane_resource_version;
CREATE TABLE IF NOT EXISTS clusterplane_status (
	object_id uuid NOT NULL REFERENCES clusterplane_objects (id) ON DELETE CASCADE,
	controller_name text NOT NULL,
	observed_generation bigint NOT NULL,
	conditions jsonb NOT NULL,
	metadata jsonb NOT NULL,
	updated_at timestamptz NOT NULL,
	PRIMARY KEY (object_id, controller_name)
);
CREATE TABLE IF NOT EXISTS clusterplane_tokens (
	id text PRIMARY KEY,
	name text NOT NULL,
	role text NOT NULL,
	hash bytea NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz,
	controller text NOT NULL DEFAULT ''
);
ALTER TABLE clusterplane_tokens ADD COLUMN IF NOT EXISTS controller text NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS clusterplane_stack_marks (
	object_id uuid PRIMARY KEY REFERENCES clusterplane_objects (id) ON DELETE CASCADE,
	stack text NOT NULL,
	version bigint NOT NULL,
	lost text NOT NULL DEFAULT '',
	updated_at timestamptz NOT NULL
);
-- clusterplane_changes counts the writes to clusterplane_objects, so that a replica can tell
-- whether a list it encoded before is still what the table holds (Objects.Changes). A trigger
-- counts them, whatever writes, and in the writing transaction: a count is seen only with the
-- rows it counts. Sixteen rows, each object counted in one by its id, so that writers of
-- different objects rarely wait on one another's count.
CREATE TABLE IF NOT EXISTS clusterplane_changes (shard integer PRIMARY KEY, value bigint NOT NULL);
INSERT INTO clusterplane_changes (shard, value) SELECT s, 0 FROM generate_series(0, 15) AS s ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION clusterplane_count_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	UPDATE clusterplane_changes SET value = value + 1
		WHERE shard = (hashtext(CAST(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END AS text)) & 15);
	RETURN NULL;
END
$fn$;
DO $do$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'clusterplane_objects_changed') THEN
		CREATE TRIGGER clusterplane_objects_changed AFTER INSERT OR UPDATE OR DELETE ON clusterplane_objects
			FOR EACH ROW EXECUTE FUNCTION clusterplane_count_change();
	END IF;
END
$do$;
`

// sqliteSchema is postgresSchema in SQLite's types: ids and JSON as text, times as timestamps
// (which the driver reads back as times), a counter row for the resource versions, and one row
// counting the changes (SQLite's writers take turns, so one row makes none of them wait). SQLite
// has no ADD COLUMN IF NOT EXISTS: the columns added since a table was first made are in
// sqliteAdded instead.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS clusterplane_objects (
	id text PRIMARY KEY,
	kind text NOT NULL CHECK (kind IN ('cluster', 'nodepool')),
	name text NOT NULL,
	cluster_id text REFERENCES clusterplane_objects (id),
	spec text NOT NULL,
	generation integer NOT NULL,
	resource_version integer NOT NULL,
	phase text NOT NULL DEFAULT 'Pending',
	health text NOT NULL DEFAULT 'Unknown',
	deleting boolean NOT NULL DEFAULT false,
	stack_owned boolean NOT NULL DEFAULT false,
	created_at timestamp NOT NULL,
	updated_at timestamp NOT NULL,
	created_by text NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS clusterplane_objects_name
	ON clusterplane_objects (kind, coalesce(cluster_id, ''), name);
CREATE INDEX IF NOT EXISTS clusterplane_objects_list ON clusterplane_objects (kind, created_at, id);
-- A cluster's pools and the status and health filters, in list order (Objects.List).
CREATE INDEX IF NOT EXISTS clusterplane_objects_cluster ON clusterplane_objects (kind, cluster_id, created_at, id);
CREATE INDEX IF NOT EXISTS clusterplane_objects_state ON clusterplane_objects (kind, phase, health, created_at, id);
-- The status filter alone and the health filter alone: with a column between the filter's and
-- created_at, a page after a cursor read and sorted every row the filter selects.
CREATE INDEX IF NOT EXISTS clusterplane_objects_phase ON clusterplane_objects (kind, phase, created_at, id);
CREATE INDEX IF NOT EXISTS clusterplane_objects_health ON clusterplane_objects (kind, health, created_at, id);
CREATE TABLE IF NOT EXISTS clusterplane_counter (value integer NOT NULL);
INSERT INTO clusterplane_counter (value) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM clusterplane_counter);
CREATE TABLE IF NOT EXISTS clusterplane_status (
	object_id text NOT NULL REFERENCES clusterplane_objects (id) ON DELETE CASCADE,
	controller_name text NOT NULL,
	observed_generation integer NOT NULL,
	conditions text NOT NULL,
	metadata text NOT NULL,
	updated_at timestamp NOT NULL,
	PRIMARY KEY (object_id, controller_name)
);
CREATE TABLE IF NOT EXISTS clusterplane_tokens (
	id text PRIMARY KEY,
	name text NOT NULL,
	role text NOT NULL,
	hash blob NOT NULL,
	created_at timestamp NOT NULL,
	revoked_at timestamp,
	controller text NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS clusterplane_stack_marks (
	object_id text PRIMARY KEY REFERENCES clusterplane_objects (id) ON DELETE CASCADE,
	stack text NOT NULL,
	version integer NOT NULL,
	lost text NOT NULL DEFAULT '',
	updated_at timestamp NOT NULL
);
CREATE TABLE IF NOT EXISTS clusterplane_changes (shard integer PRIMARY KEY, value integer NOT NULL);
INSERT OR IGNORE INTO clusterplane_changes (shard, value) VALUES (0, 0);
CREATE TRIGGER IF NOT EXISTS clusterplane_objects_inserted AFTER INSERT ON clusterplane_objects
	BEGIN UPDATE clusterplane_changes SET value = value + 1; END;
CREATE TRIGGER IF NOT EXISTS clusterplane_objects_updated AFTER UPDATE ON clusterplane_objects
	BEGIN UPDATE clusterplane_changes SET value = value + 1; END;
CREATE TRIGGER IF NOT EXISTS clusterplane_objects_deleted AFTER DELETE ON clusterplane_objects
	BEGIN UPDATE clusterplane_changes SET value = value + 1; END;
`

// sqliteAdded are the columns added to SQLite tables since they were first made, which
// migrate adds to an older database's tables. An older database's rows get the default:
// clusterplane_tokens.controller is empty for tokens made before controller tokens named their
// controller, and such a token reports no status (auth.Principal.MayReportAs).
var sqliteAdded = []struct{ table, column, definition string }{
	{"clusterplane_tokens", "controller", "text NOT NULL DEFAULT ''"},
}

// connect opens the database a --database-url names: postgres:// or postgresql:// (PostgreSQL),
// or sqlite:PATH (an SQLite file, made when missing).
func connect(rawURL string) (*sql.DB, dialect, error) {
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		db, err := sql.Open("pgx", rawURL)
		if err != nil {
			return nil, dialect{}, err
		}
		// database/sql opens a connection for every query waiting and keeps two idle: a burst
		// of requests would open more than the server allows (100 by default) and close them
		// all again. A few connections, kept open, serve the API and the queue of one replica,
		// as pgx's own pool would.
		n := max(4, runtime.NumCPU())
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxIdleTime(30 * time.Minute)
		db.SetConnMaxLifetime(time.Hour)
		return db, postgres, nil
	case strings.HasPrefix(rawURL, SQLitePrefix):
		path := SQLitePath(rawURL)
		if path == "" {
			return nil, dialect{}, errors.New("sqlite: names no file (sqlite:serve.db, sqlite:///var/lib/clusterplane/serve.db)")
		}
		if dir := filepath.Dir(path); !isDir(dir) {
			return nil, dialect{}, errors.Errorf("its folder %s does not exist", dir)
		}
		path, err := ownSQLiteFile(path)
		if err != nil {
			return nil, dialect{}, err
		}
		q := url.Values{}
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "busy_timeout(10000)")
		q.Set("_txlock", "immediate")
		db, err := sql.Open("sqlite", sqliteDSN(path, q))
		if err != nil {
			return nil, dialect{}, err
		}
		// SQLite writes one transaction at a time; River's driver advises one connection, which
		// also makes every transaction of the store wait its turn rather than fail busy.
		db.SetMaxOpenConns(1)
		return db, sqliteDialect, nil
	}
	return nil, dialect{}, errors.New("not a database URL serve takes: postgres://... (PostgreSQL) or sqlite:PATH (an SQLite file)")
}

// sqliteCompanions are the files SQLite keeps beside the database and reads back on opening it:
// the write-ahead log and its index, and the rollback journal of a file not yet in WAL mode.
var sqliteCompanions = []string{"-wal", "-shm", "-journal"}

// ownSQLiteFile makes the SQLite file at path, 0600, or checks the one there, and returns where
// it is. Whoever may write the database holds the service: an admin token planted in it opens
// an API that deploys with this user's cloud tokens. So the folder must be this user's alone
// (ownedfs: SQLite makes the log and index files there, which a planted one would take the
// place of), and an existing file, log or index must be this user's and written by no one else;
// anything else is refused, naming the file and why. A new database is 0600, and SQLite gives
// the files it makes beside it the database's mode, so those are 0600 too. The folder is taken
// where its links lead, so that the folder checked is the one opened.
func ownSQLiteFile(path string) (string, error) {
	path, err := checkSQLiteFile(path)
	return path, adviseSQLite(err)
}

// checkSQLiteFile is ownSQLiteFile, with ownedfs's own advice.
func checkSQLiteFile(path string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", errors.Wrap(err, "find the SQLite file's folder")
	}
	if err := ownedfs.Check(dir); err != nil {
		return "", errors.Wrap(err, "the SQLite file's folder")
	}
	path = filepath.Join(dir, filepath.Base(path))
	// O_EXCL makes the file only where nothing is, a link included: what is there is checked.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return "", errors.Wrap(err, "create the SQLite file")
		}
	case errors.Is(err, fs.ErrExist):
		if err := ownedfs.CheckFile(path); err != nil {
			return "", err
		}
	default:
		return "", errors.Wrap(err, "create the SQLite file")
	}
	for _, suffix := range sqliteCompanions {
		companion := path + suffix
		if _, err := os.Lstat(companion); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := ownedfs.CheckFile(companion); err != nil {
			return "", err
		}
	}
	return path, nil
}

// adviseSQLite gives a refusal of another user's file or folder serve's own way out: the file
// is the one --database-url names, not a folder clusterplane chose (ownedfs's advice names
// those).
func adviseSQLite(err error) error {
	var refused *ownedfs.NotOwnedError
	if errors.As(err, &refused) && refused.UID != os.Getuid() && refused.Mode&fs.ModeSymlink == 0 {
		refused.Advice = "someone else made it first, and whoever did could read the service's tokens or give " +
			"themselves one; remove it (as its owner or root) and run again, or name a file of your own: " +
			"--database-url sqlite:PATH"
	}
	return err
}

func sqliteDSN(path string, q url.Values) string {
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

// openReads opens read-only connections to the SQLite file rawURL names, once connect and
// migrate made it (in WAL mode, which lets readers go on beside the one writer). The store's
// writing connection is one (connect): with reads on it too, 200 lists at once waited for one
// another and for every write; here they use every core.
func openReads(rawURL string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", sqliteDSN(SQLitePath(rawURL), q))
	if err != nil {
		return nil, err
	}
	n := max(4, runtime.NumCPU())
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// SQLitePath is the file an sqlite: URL names ("" when it names none): sqlite:serve.db is
// serve.db in the current folder, sqlite:///var/lib/serve.db an absolute path.
func SQLitePath(rawURL string) string {
	path := strings.TrimPrefix(rawURL, SQLitePrefix)
	if strings.HasPrefix(path, "//") {
		path = path[2:]
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return path
}

// uniqueViolation tells whether err is a unique index's refusal, in either database.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	}
	return false
}

// foreignKeyViolation tells whether err is a foreign key's refusal, in either database: a row
// removed while others still refer to it.
func foreignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23503"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
	}
	return false
}

// migrate creates the service's tables when they are missing and adds what an older database
// lacks, then runs also (the queue's migrations) under the same lock: replicas starting at once
// on an empty PostgreSQL database would otherwise create the same tables and functions
// together, and all but one fail.
func (d dialect) migrate(ctx context.Context, db *sql.DB, also func(ctx context.Context) error) error {
	if d.lock != "" {
		// The lock is the session's: it is taken and given back on one connection, held
		// meanwhile; the migrations run on the pool's others.
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, d.lock); err != nil {
			return errors.Wrap(err, "lock the schema")
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), d.unlock) //nolint:errcheck // the lock goes with the session anyway
	}
	// SQLite holds no lock: one replica uses its file, through its one connection (which a
	// connection held here would keep from the migrations).
	if _, err := db.ExecContext(ctx, d.schema); err != nil {
		return errors.Wrap(err, "create the service's tables")
	}
	if d.name == SQLite {
		// SQLite has no ADD COLUMN IF NOT EXISTS: each added column is looked for first.
		for _, c := range sqliteAdded {
			var n int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info($1) WHERE name = $2`, c.table, c.column).Scan(&n); err != nil {
				return errors.Wrapf(err, "look for %s.%s", c.table, c.column)
			}
			if n == 0 {
				if _, err := db.ExecContext(ctx, `ALTER TABLE `+c.table+` ADD COLUMN `+c.column+` `+c.definition); err != nil {
					return errors.Wrapf(err, "add %s.%s", c.table, c.column)
				}
			}
		}
	}
	if _, err := db.ExecContext(ctx, schemaStamp); err != nil {
		return errors.Wrap(err, "record the tables' version")
	}
	if also == nil {
		return nil
	}
	return also(ctx)
}

// SchemaVersion is the version of the service's tables this build makes (migrate records it,
// once the tables are made). Raise it when the schema gains what this build reads: GET /readyz
// answers 503 while the database's version is older, as on a database put back from a copy
// older than the replica.
//
// A rolling update runs the previous version's replicas beside this one's on one database, so
// the tables change by expand, then contract: a version only adds (tables, indexes, columns
// with a default, each IF NOT EXISTS); a column or table stops being read one version and is
// dropped the next. e2e's TestAReplicaOfThePreviousVersionAndOneOfThisServeOneDatabaseTogether
// runs the previous version's build beside this one.
const SchemaVersion = 1

// schemaStamp records SchemaVersion, the same text on both databases; a newer version, recorded
// by a newer replica, is kept.
var schemaStamp = fmt.Sprintf(`
CREATE TABLE IF NOT EXISTS clusterplane_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL);
INSERT INTO clusterplane_schema_version (id, version) VALUES (1, %d)
	ON CONFLICT (id) DO UPDATE SET version = excluded.version WHERE clusterplane_schema_version.version < excluded.version;
`, SchemaVersion)

// undefinedTable tells whether err is a query's refusal of a table that does not exist, in
// either database.
func undefinedTable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "42P01"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqlite3.SQLITE_ERROR && strings.Contains(lite.Error(), "no such table")
	}
	return false
}
