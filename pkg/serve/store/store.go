// Package store keeps what `clusterplane serve` knows in PostgreSQL: the clusters and node pools
// clients asked for (each with its generation and resource version), the status controllers
// report on them, and the API tokens of bots and controllers (hashed). Every write that asks for
// a reconcile enqueues it in the same transaction (Store.Enqueue), so that a spec is never saved
// without the work that applies it, nor the work queued for a spec that was not saved.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/google/uuid"
	"github.com/pkg/errors"
)

// The types of object the API serves (an object type, not a kind: each becomes one of several
// manifest kinds, by its platform).
const (
	Cluster  = "cluster"
	NodePool = "nodepool"
)

// Object is one cluster or node pool as a client asked for it.
type Object struct {
	ID   string `json:"id"`
	Type string `json:"-"`
	Name string `json:"name"`
	// ClusterID is a node pool's cluster; "" for a cluster.
	ClusterID string `json:"cluster_id,omitempty"`
	// Spec is the body's spec as the client sent it (compacted JSON).
	Spec json.RawMessage `json:"spec"`
	// Generation counts the changes of Spec: it moves only when the spec does, so that a
	// controller's observed_generation settles for a client that sends the same spec again.
	Generation int64 `json:"generation"`
	// ResourceVersion changes on every write; a conditional write (If-Match) names the one it read.
	ResourceVersion string `json:"resource_version"`
	// Phase and Health summarise the last status reported (Pending until one is).
	Phase  string `json:"phase"`
	Health string `json:"health"`
	// Deleting is set by DELETE: the stack is being destroyed, and the object goes once it is.
	Deleting bool `json:"deleting,omitempty"`
	// StackOwned is set once a worker found the object's stack free (none made outside the API)
	// and went on to deploy it: only then is the stack the object's to change and destroy.
	StackOwned bool      `json:"-"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	CreatedBy  string    `json:"created_by"`
}

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

// AnyVersion is If-Match: *, which RFC 9110 says matches any current version: a client that
// means to overwrite whatever is there says so.
const AnyVersion = "*"

// Enqueue queues the reconcile of one object inside tx, the transaction that writes it.
type Enqueue func(ctx context.Context, tx *sql.Tx, objectID string) error

// Store is the database of one `clusterplane serve` replica (SQLite) or of several (PostgreSQL).
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
	st.gets.read, st.changes.read = st.readByIDs, st.readChanges
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

const columns = `id, kind, name, coalesce(CAST(cluster_id AS text), ''), spec, generation, resource_version, phase, health,
	deleting, stack_owned, created_at, updated_at, created_by`

// row is what scan reads: a *sql.Row or *sql.Rows.
type row interface{ Scan(dest ...any) error }

func scan(row row) (Object, error) {
	var o Object
	var rv int64
	var spec []byte
	err := row.Scan(&o.ID, &o.Type, &o.Name, &o.ClusterID, &spec, &o.Generation, &rv, &o.Phase, &o.Health,
		&o.Deleting, &o.StackOwned, &o.CreatedAt, &o.UpdatedAt, &o.CreatedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return o, ErrNotFound
	}
	o.Spec = spec
	o.ResourceVersion = strconv.FormatInt(rv, 10)
	o.CreatedAt, o.UpdatedAt = o.CreatedAt.UTC(), o.UpdatedAt.UTC()
	return o, err
}

// Create saves a new object (its ID, generation and version are given here) and enqueues its
// reconcile. A cluster's name, or a pool's within its cluster, is taken once: ErrExists.
func (s *Store) Create(ctx context.Context, o Object) (Object, error) {
	var out Object
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if o.Type == NodePool {
			// The cluster's row is locked until the pool is saved, as Delete locks it before it
			// counts the pools: otherwise a delete that committed after this read (it cannot see
			// this pool yet) and this insert would both succeed, leaving a pool on a cluster being
			// destroyed, and a cluster record that can never go since the pool refers to it.
			var deleting bool
			err := tx.QueryRowContext(ctx, `SELECT deleting FROM clusterplane_objects WHERE id = $1 AND kind = 'cluster'`+s.dialect.forUpdate,
				o.ClusterID).Scan(&deleting)
			if errors.Is(err, sql.ErrNoRows) {
				return errors.Wrapf(ErrNotFound, "cluster %s", o.ClusterID)
			}
			if err != nil {
				return err
			}
			if deleting {
				return errors.Wrap(ErrDeleting, "the cluster")
			}
		}
		var cluster any
		if o.ClusterID != "" {
			cluster = o.ClusterID
		}
		version, err := s.nextVersion(ctx, tx)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		row := tx.QueryRowContext(ctx, `INSERT INTO clusterplane_objects (id, kind, name, cluster_id, spec, generation,
			resource_version, created_at, updated_at, created_by)
			VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $7, $8)
			RETURNING `+columns, uuid.NewString(), o.Type, o.Name, cluster, string(o.Spec), version, now, o.CreatedBy)
		if out, err = scan(row); err != nil {
			return nameTaken(err)
		}
		return s.enqueue(ctx, tx, out.ID)
	})
	return out, err
}

// nameTaken turns the unique index's refusal into ErrExists.
func nameTaken(err error) error {
	if uniqueViolation(err) {
		return ErrExists
	}
	return err
}

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

// Get reads one object of the type.
func (s *Store) Get(ctx context.Context, objectType, id string) (Object, error) {
	parsed, err := uuid.Parse(id)
	if err != nil {
		return Object{}, ErrNotFound
	}
	// In the form the databases give ids back, so that an id in capitals finds its object on
	// SQLite, which compares them as text, as on PostgreSQL.
	id = parsed.String()
	if s.reads == nil && !s.ReadsAlone {
		o, found, err := s.gets.get(ctx, id)
		if err == nil && (!found || o.Type != objectType) {
			return Object{}, ErrNotFound
		}
		return o, err
	}
	return scan(s.readRow(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`, id, objectType))
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

// ClusterBody reads a cluster's body (body.Clusters): a pool's manifest is made with it.
func (s *Store) ClusterBody(ctx context.Context, id string) (body.Body, error) {
	c, err := s.Get(ctx, Cluster, id)
	if err != nil {
		return body.Body{}, err
	}
	return body.Stored(c.Name, c.ClusterID, c.Spec)
}

// Change is what a conditional write does to an object: its new name and spec (Update), or its
// deletion (Delete).
type Change struct {
	Name string
	Spec json.RawMessage
}

// Update writes name and spec when ifMatch is the object's resource version (ErrStale otherwise).
// The version always changes; the generation only when the spec does. The row is locked while
// compared, so of writers carrying one version exactly one wins.
func (s *Store) Update(ctx context.Context, objectType, id, ifMatch string, c Change) (Object, error) {
	return s.conditional(ctx, objectType, id, ifMatch, func(tx *sql.Tx, old Object) (*sql.Row, error) {
		if old.Deleting {
			return nil, ErrDeleting
		}
		generation := old.Generation
		if !sameJSON(old.Spec, c.Spec) {
			generation++
		}
		version, err := s.nextVersion(ctx, tx)
		if err != nil {
			return nil, err
		}
		return tx.QueryRowContext(ctx, `UPDATE clusterplane_objects SET name = $2, spec = $3, generation = $4,
			resource_version = $5, updated_at = $6
			WHERE id = $1 RETURNING `+columns, id, c.Name, string(c.Spec), generation, version, time.Now().UTC()), nil
	})
}

// Delete marks the object for deletion when ifMatch is its resource version, and enqueues the
// reconcile that destroys its stack (the row goes with Forget once it is destroyed). refuse, when
// set, is asked in the same transaction whether the object may go (a cluster with pools may not).
func (s *Store) Delete(ctx context.Context, objectType, id, ifMatch string, refuse func(ctx context.Context, tx *sql.Tx, o Object) error) (Object, error) {
	return s.conditional(ctx, objectType, id, ifMatch, func(tx *sql.Tx, old Object) (*sql.Row, error) {
		if refuse != nil {
			if err := refuse(ctx, tx, old); err != nil {
				return nil, err
			}
		}
		version, err := s.nextVersion(ctx, tx)
		if err != nil {
			return nil, err
		}
		return tx.QueryRowContext(ctx, `UPDATE clusterplane_objects SET deleting = true, phase = 'Finalizing',
			resource_version = $2, updated_at = $3
			WHERE id = $1 RETURNING `+columns, id, version, time.Now().UTC()), nil
	})
}

func (s *Store) conditional(ctx context.Context, objectType, id, ifMatch string, write func(tx *sql.Tx, old Object) (*sql.Row, error)) (Object, error) {
	if uuid.Validate(id) != nil {
		return Object{}, ErrNotFound
	}
	var out Object
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		old, err := scan(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`+s.dialect.forUpdate, id, objectType))
		if err != nil {
			return err
		}
		if ifMatch != AnyVersion && old.ResourceVersion != ifMatch {
			return ErrStale
		}
		row, err := write(tx, old)
		if err != nil {
			return err
		}
		if out, err = scan(row); err != nil {
			return nameTaken(err)
		}
		return s.enqueue(ctx, tx, id)
	})
	return out, err
}

// PoolsOf counts the node pools of a cluster, in tx (Delete's refuse).
func PoolsOf(ctx context.Context, tx *sql.Tx, clusterID string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM clusterplane_objects WHERE cluster_id = $1`, clusterID).Scan(&n)
	return n, errors.Wrap(err, "count the cluster's pools")
}

// OwnStack records that the object's stack is its own: a worker found no stack made outside the
// API and is about to deploy one.
func (s *Store) OwnStack(ctx context.Context, id string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE clusterplane_objects SET stack_owned = true WHERE id = $1`, id)
	return errors.Wrap(err, "record the stack as the object's")
}

// Forget removes a deleted object and its status, once its stack is destroyed. A cluster whose
// pools are still recorded stays: ErrReferenced. A pool forgotten while its cluster is being
// deleted queues the cluster's reconcile again, so that a cluster whose Forget waited on its
// pools goes with the last of them.
func (s *Store) Forget(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var cluster string
		err := tx.QueryRowContext(ctx, `DELETE FROM clusterplane_objects WHERE id = $1 AND deleting
			RETURNING coalesce(CAST(cluster_id AS text), '')`, id).Scan(&cluster)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil // not being deleted, or forgotten already
		case foreignKeyViolation(err):
			return ErrReferenced
		case err != nil:
			return err
		case cluster == "":
			return nil
		}
		var deleting bool
		if err := tx.QueryRowContext(ctx, `SELECT deleting FROM clusterplane_objects WHERE id = $1`, cluster).Scan(&deleting); err != nil {
			return errors.Wrap(err, "read the pool's cluster")
		}
		if !deleting {
			return nil
		}
		return s.enqueue(ctx, tx, cluster)
	})
	return errors.Wrap(err, "forget the deleted object")
}

// Filter selects the objects a list returns.
type Filter struct {
	Type      string
	ClusterID string
	Phase     string
	Health    string
	Limit     int
	Offset    int
	// After, when set, starts the page after that object in the list's order (keyset paging):
	// the database finds the place in the index, where an offset reads and drops every row
	// before it.
	After *Place
}

// Place is an object's place in a list's order: oldest first, ties by id.
type Place struct {
	CreatedAt time.Time
	ID        string
}

// Page is one page of a list: the objects, how many the filter selects in all, and the count
// of changes (Changes) the page was read at; 0 when the page holds no row to carry it. Next is
// the place of the page's last object when more follow it; nil on the last page.
type Page struct {
	Objects []Object
	Total   int
	Changes int64
	Next    *Place
}

// Changes counts every write to the objects' table so far (a trigger counts them in the
// writing transaction). A page read at a count is still the table's answer while the count
// stays: what a replica that encoded the page once can serve again without reading it.
func (s *Store) Changes(ctx context.Context) (int64, error) {
	if s.ReadsAlone {
		return s.countChanges(ctx)
	}
	n, _, err := s.changes.get(ctx, struct{}{})
	return n, err
}

const changesQuery = `SELECT CAST(sum(value) AS bigint) FROM clusterplane_changes`

// List returns one page of the objects the filter selects, oldest first, how many it
// selects in all, and the changes it was read at. One query answers all three, from one view
// of the table: a list was a count(*) and then the page, two round trips. Only the filters
// given are in the query, compared with the columns as they are, so that the indexes on
// (kind, cluster_id, created_at) and (kind, phase, health, created_at) serve them.
func (s *Store) List(ctx context.Context, f Filter) (Page, error) {
	where := `kind = $1`
	args := []any{f.Type}
	and := func(column, value string) {
		if value != "" {
			args = append(args, value)
			where += ` AND ` + column + ` = $` + strconv.Itoa(len(args))
		}
	}
	page := Page{Objects: []Object{}}
	if f.ClusterID != "" && uuid.Validate(f.ClusterID) != nil {
		return page, nil // no cluster has that id (PostgreSQL would refuse it as a uuid)
	}
	and("cluster_id", f.ClusterID)
	and("phase", f.Phase)
	and("health", f.Health)
	n := len(args)
	pageWhere := where
	if f.After != nil {
		if uuid.Validate(f.After.ID) != nil {
			return Page{}, errors.Errorf("list after object %q: not an id", f.After.ID)
		}
		// A row value compared in the list's order: the indexes' (created_at, id) after the
		// filters' equalities, so the database starts the page where the place is.
		args = append(args, f.After.CreatedAt.UTC(), f.After.ID)
		pageWhere += ` AND (created_at, id) > ($` + strconv.Itoa(n+1) + `, $` + strconv.Itoa(n+2) + `)`
	}
	m := len(args)
	// The total is a subquery the database runs once (it names no column of the outer row),
	// counting in the index alone; a window count(*) OVER () instead copied every selected row,
	// spec and all, before the page was cut from them. One row more than the page is read: it
	// says whether another page follows.
	rows, err := s.read(ctx, `SELECT `+columns+`, (SELECT count(*) FROM clusterplane_objects WHERE `+where+
		`), (`+changesQuery+`) FROM clusterplane_objects WHERE `+pageWhere+` ORDER BY created_at, id LIMIT $`+strconv.Itoa(m+1)+` OFFSET $`+strconv.Itoa(m+2),
		append(args, f.Limit+1, f.Offset)...)
	if err != nil {
		return Page{}, errors.Wrap(err, "list the objects")
	}
	defer rows.Close()
	for rows.Next() {
		o, err := scan(withTotal{rows, &page.Total, &page.Changes})
		if err != nil {
			return Page{}, errors.Wrap(err, "read an object")
		}
		page.Objects = append(page.Objects, o)
	}
	if err := rows.Err(); err != nil {
		return Page{}, errors.Wrap(err, "list the objects")
	}
	if len(page.Objects) > f.Limit {
		page.Objects = page.Objects[:f.Limit]
		last := page.Objects[f.Limit-1]
		page.Next = &Place{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	if len(page.Objects) == 0 && (f.Offset > 0 || f.After != nil) {
		// A page past the end has no row to carry the total: count on its own.
		if err := s.readRow(ctx, `SELECT count(*) FROM clusterplane_objects WHERE `+where, args[:n]...).Scan(&page.Total); err != nil {
			return Page{}, errors.Wrap(err, "count the objects")
		}
	}
	return page, nil
}

// withTotal scans a list's row: the object's columns, then the total and the changes List adds.
type withTotal struct {
	rows    *sql.Rows
	total   *int
	changes *int64
}

func (w withTotal) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.total, w.changes)...) }

// sameJSON tells whether two JSON documents hold the same values, whatever their spacing and
// key order (PostgreSQL's jsonb keeps neither).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// Find reads one object of either type (a reconcile knows only the id).
func (s *Store) Find(ctx context.Context, id string) (Object, error) {
	return scan(s.DB.QueryRowContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1`, id))
}

// Ready returns every object whose phase is Ready and that is not being deleted, oldest first:
// what a drift check compares with the cloud. Read in one query, since the sweep builds every
// one's manifest.
func (s *Store) Ready(ctx context.Context) ([]Object, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE phase = 'Ready' AND NOT deleting ORDER BY created_at, id`)
	if err != nil {
		return nil, errors.Wrap(err, "list the ready objects")
	}
	defer rows.Close()
	var objects []Object
	for rows.Next() {
		o, err := scan(rows)
		if err != nil {
			return nil, errors.Wrap(err, "list the ready objects")
		}
		objects = append(objects, o)
	}
	return objects, errors.Wrap(rows.Err(), "list the ready objects")
}
