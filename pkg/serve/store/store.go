// Package store keeps what `clusterplane serve` knows in PostgreSQL or SQLite, one type for each
// thing it keeps, all on the one database a Store opens:
//
//   - Objects (objects.go): the clusters and node pools clients asked for, each with its
//     generation and resource version;
//   - Statuses (statuses.go): what controllers report on them;
//   - Tokens (tokens.go): the API tokens of bots and controllers (hashed);
//   - Jobs (jobs.go): the workers' leases on the jobs they run, and the marks of the stack
//     updates they made.
//
// Every write that asks for a reconcile enqueues it in the same transaction (Store.Enqueue), so
// that a spec is never saved without the work that applies it, nor the work queued for a spec
// that was not saved.
package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
)

// The errors a write or a read ends with, that the API answers with their own codes.
var (
	ErrNotFound = errors.New("not found")
	// ErrStale is a conditional write whose resource version is no longer the object's.
	ErrStale = errors.New("the resource version given is not the current one")
	// ErrExists is a name already taken (a cluster's, or a pool's within its cluster).
	ErrExists = errors.New("the name is already taken")
	// ErrDeleting is a write to an object being deleted, or a pool added to a cluster that is.
	ErrDeleting = errors.New("it is being deleted")
	// ErrReferenced is a Forget of a cluster whose node pools are still recorded: its record
	// cannot go before theirs.
	ErrReferenced = errors.New("node pools still refer to it")
)

// Enqueue queues the reconcile of one object inside tx, the transaction that writes it.
type Enqueue func(ctx context.Context, tx *sql.Tx, objectID string) error

// Store is the database of one `clusterplane serve` replica (SQLite) or of several (PostgreSQL):
// its connections, its tables' versions, and the settings every write reads (Enqueue,
// Summarise). What it keeps is read and written through Objects, Statuses, Tokens and Jobs,
// which share its connections, so that a setting made on the Store after Open holds for all.
type Store struct {
	DB *sql.DB
	// Database is PostgreSQL or SQLite.
	Database string
	dialect  dialect
	// reads are SQLite's read-only connections (nil on PostgreSQL): see read.
	reads *sql.DB
	// prepared are the reads' statements by their text (SQLite only): see read.
	prepared sync.Map
	// gets reads objects by id on PostgreSQL, and changes the count of changes, each many at
	// once in one query: see joined.
	gets    joined[string, Object]
	changes joined[struct{}, int64]
	// ReadsAlone makes every read by id and every count of changes a query of its own, as
	// before reads were put together; `make bench-api` measures both in one run.
	ReadsAlone bool
	// Enqueue, when set, is called in the transaction of every write that needs a reconcile.
	Enqueue Enqueue
	// Summarise names the controller whose reports set an object's phase and health (the
	// service's own workers'); other controllers' reports are kept and shown beside it.
	Summarise string
}

// Open connects to the database url names (postgres://... or sqlite:PATH) and creates the
// service's tables when they are missing.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenMigrating(ctx, url, nil)
}

// OpenMigrating is Open, and runs also (another part's migrations: the queue's) after the
// store's own, under the lock that keeps replicas starting at once from migrating together.
// also's error is returned as it is.
func OpenMigrating(ctx context.Context, url string, also func(ctx context.Context, st *Store) error) (*Store, error) {
	// The driver's errors may quote the URL, and with it the password.
	r := redact.New().WithURL(url)
	what := "connect to the database (--database-url)"
	if strings.HasPrefix(url, SQLitePrefix) {
		what = "open the SQLite file " + SQLitePath(url)
	}
	db, d, err := connect(url)
	if err != nil {
		return nil, errors.Wrap(r.Error(err), what)
	}
	st := &Store{DB: db, Database: d.name, dialect: d}
	st.gets.read, st.changes.read = st.Objects().readByIDs, st.Objects().readChanges
	var alsoErr error
	var more func(ctx context.Context) error
	if also != nil {
		more = func(ctx context.Context) error {
			alsoErr = also(ctx, st)
			return alsoErr
		}
	}
	if err := d.migrate(ctx, db, more); err != nil {
		db.Close()
		if alsoErr != nil {
			return nil, alsoErr
		}
		return nil, errors.Wrap(r.Error(err), what)
	}
	if d.name == SQLite {
		if st.reads, err = openReads(url); err != nil {
			db.Close()
			return nil, errors.Wrap(r.Error(err), what)
		}
	}
	return st, nil
}

// Ping tells whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.DB.PingContext(ctx)
}

// Versions are the versions the database's tables are at, each 0 where its table is missing.
type Versions struct {
	// Tables is the service's own (SchemaVersion, once this build migrated them).
	Tables int
	// Queue is the queue's: the last of River's migrations run.
	Queue int
}

// Versions reads the versions the database's tables are at.
func (s *Store) Versions(ctx context.Context) (Versions, error) {
	var v Versions
	for _, read := range []struct {
		into  *int
		query string
	}{
		{&v.Tables, `SELECT coalesce(max(version), 0) FROM clusterplane_schema_version`},
		{&v.Queue, `SELECT coalesce(max(version), 0) FROM river_migration`},
	} {
		if err := s.readRow(ctx, read.query).Scan(read.into); err != nil && !undefinedTable(err) {
			return v, errors.Wrap(err, "read the tables' version")
		}
	}
	return v, nil
}

// Close closes the database's connections.
func (s *Store) Close() {
	if s.reads != nil {
		s.reads.Close()
	}
	s.DB.Close()
}

// row is what scan reads: a *sql.Row or *sql.Rows.
type row interface{ Scan(dest ...any) error }

// nextVersion takes the next resource version, in tx.
func (s *Store) nextVersion(ctx context.Context, tx *sql.Tx) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, s.dialect.nextVersion).Scan(&v)
	return v, errors.Wrap(err, "take a resource version")
}

func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, id string) error {
	if s.Enqueue == nil {
		return nil
	}
	return errors.Wrap(s.Enqueue(ctx, tx, id), "queue the reconcile")
}

// inTx runs f in a transaction, committed when f returns nil and rolled back otherwise.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return errors.Wrap(err, "begin a transaction")
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback() // the error that made it roll back is the one to report
		return err
	}
	return errors.Wrap(tx.Commit(), "commit")
}

// read runs a read outside any transaction. On SQLite it goes to the read-only connections,
// which read beside the one writing connection (WAL), its statement prepared once: parsing a
// list's query took as long as running it. PostgreSQL's driver keeps prepared statements itself.
func (s *Store) read(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s.reads == nil {
		return s.DB.QueryContext(ctx, query, args...)
	}
	stmt, err := s.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

// readRow is read for one row.
func (s *Store) readRow(ctx context.Context, query string, args ...any) row {
	if s.reads == nil {
		return s.DB.QueryRowContext(ctx, query, args...)
	}
	stmt, err := s.prepare(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return stmt.QueryRowContext(ctx, args...)
}

type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

func (s *Store) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if stmt, ok := s.prepared.Load(query); ok {
		return stmt.(*sql.Stmt), nil
	}
	stmt, err := s.reads.PrepareContext(ctx, query)
	if err != nil {
		return nil, errors.Wrap(err, "prepare a read")
	}
	if old, loaded := s.prepared.LoadOrStore(query, stmt); loaded {
		stmt.Close()
		return old.(*sql.Stmt), nil
	}
	return stmt, nil
}
