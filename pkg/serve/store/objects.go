package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/pkg/errors"
)

// Objects keeps the clusters and node pools clients asked for: each one's name and spec, its
// generation and resource version, the phase and health its status sums up to, and whether it
// is being deleted; read one by one, or a page of a list at a time. Every write that needs a
// reconcile queues it in its own transaction (Store.Enqueue).
type Objects struct{ s *Store }

// Objects is the store's clusters and node pools.
func (s *Store) Objects() Objects { return Objects{s} }

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

// AnyVersion is If-Match: *, which RFC 9110 says matches any current version: a client that
// means to overwrite whatever is there says so.
const AnyVersion = "*"

const columns = `id, kind, name, coalesce(CAST(cluster_id AS text), ''), spec, generation, resource_version, phase, health,
	deleting, stack_owned, created_at, updated_at, created_by`

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
func (t Objects) Create(ctx context.Context, o Object) (Object, error) {
	var out Object
	err := t.s.inTx(ctx, func(tx *sql.Tx) error {
		if o.Type == NodePool {
			// The cluster's row is locked until the pool is saved, as Delete locks it before it
			// counts the pools: otherwise a delete that committed after this read (it cannot see
			// this pool yet) and this insert would both succeed, leaving a pool on a cluster being
			// destroyed, and a cluster record that can never go since the pool refers to it.
			var deleting bool
			err := tx.QueryRowContext(ctx, `SELECT deleting FROM clusterplane_objects WHERE id = $1 AND kind = 'cluster'`+t.s.dialect.forUpdate,
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
		version, err := t.s.nextVersion(ctx, tx)
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
		return t.s.enqueue(ctx, tx, out.ID)
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

// Get reads one object of the type.
func (t Objects) Get(ctx context.Context, objectType, id string) (Object, error) {
	parsed, err := uuid.Parse(id)
	if err != nil {
		return Object{}, ErrNotFound
	}
	// In the form the databases give ids back, so that an id in capitals finds its object on
	// SQLite, which compares them as text, as on PostgreSQL.
	id = parsed.String()
	if t.s.reads == nil && !t.s.ReadsAlone {
		o, found, err := t.s.gets.get(ctx, id)
		if err == nil && (!found || o.Type != objectType) {
			return Object{}, ErrNotFound
		}
		return o, err
	}
	return scan(t.s.readRow(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`, id, objectType))
}

// ClusterSpec reads a cluster's name and spec as written (body.Clusters): a pool's manifest is
// made with them. The store hands on the stored text and reads no body itself, so that it links
// none of what a body is read with.
func (t Objects) ClusterSpec(ctx context.Context, id string) (name string, spec json.RawMessage, err error) {
	c, err := t.Get(ctx, Cluster, id)
	if err != nil {
		return "", nil, err
	}
	return c.Name, c.Spec, nil
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
func (t Objects) Update(ctx context.Context, objectType, id, ifMatch string, c Change) (Object, error) {
	return t.conditional(ctx, objectType, id, ifMatch, func(tx *sql.Tx, old Object) (*sql.Row, error) {
		if old.Deleting {
			return nil, ErrDeleting
		}
		generation := old.Generation
		if !sameJSON(old.Spec, c.Spec) {
			generation++
		}
		version, err := t.s.nextVersion(ctx, tx)
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
func (t Objects) Delete(ctx context.Context, objectType, id, ifMatch string, refuse func(ctx context.Context, tx *sql.Tx, o Object) error) (Object, error) {
	return t.conditional(ctx, objectType, id, ifMatch, func(tx *sql.Tx, old Object) (*sql.Row, error) {
		if refuse != nil {
			if err := refuse(ctx, tx, old); err != nil {
				return nil, err
			}
		}
		version, err := t.s.nextVersion(ctx, tx)
		if err != nil {
			return nil, err
		}
		return tx.QueryRowContext(ctx, `UPDATE clusterplane_objects SET deleting = true, phase = 'Finalizing',
			resource_version = $2, updated_at = $3
			WHERE id = $1 RETURNING `+columns, id, version, time.Now().UTC()), nil
	})
}

func (t Objects) conditional(ctx context.Context, objectType, id, ifMatch string, write func(tx *sql.Tx, old Object) (*sql.Row, error)) (Object, error) {
	if uuid.Validate(id) != nil {
		return Object{}, ErrNotFound
	}
	var out Object
	err := t.s.inTx(ctx, func(tx *sql.Tx) error {
		old, err := scan(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`+t.s.dialect.forUpdate, id, objectType))
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
		return t.s.enqueue(ctx, tx, id)
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
func (t Objects) OwnStack(ctx context.Context, id string) error {
	_, err := t.s.DB.ExecContext(ctx, `UPDATE clusterplane_objects SET stack_owned = true WHERE id = $1`, id)
	return errors.Wrap(err, "record the stack as the object's")
}

// Forget removes a deleted object and its status, once its stack is destroyed. A cluster whose
// pools are still recorded stays: ErrReferenced. A pool forgotten while its cluster is being
// deleted queues the cluster's reconcile again, so that a cluster whose Forget waited on its
// pools goes with the last of them.
func (t Objects) Forget(ctx context.Context, id string) error {
	err := t.s.inTx(ctx, func(tx *sql.Tx) error {
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
		return t.s.enqueue(ctx, tx, cluster)
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
func (t Objects) Changes(ctx context.Context) (int64, error) {
	if t.s.ReadsAlone {
		return t.countChanges(ctx)
	}
	n, _, err := t.s.changes.get(ctx, struct{}{})
	return n, err
}

const changesQuery = `SELECT CAST(sum(value) AS bigint) FROM clusterplane_changes`

// List returns one page of the objects the filter selects, oldest first, how many it
// selects in all, and the changes it was read at. One query answers all three, from one view
// of the table: a list was a count(*) and then the page, two round trips. Only the filters
// given are in the query, compared with the columns as they are, so that the indexes on
// (kind, cluster_id, created_at) and (kind, phase, health, created_at) serve them.
func (t Objects) List(ctx context.Context, f Filter) (Page, error) {
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
	rows, err := t.s.read(ctx, `SELECT `+columns+`, (SELECT count(*) FROM clusterplane_objects WHERE `+where+
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
		if err := t.s.readRow(ctx, `SELECT count(*) FROM clusterplane_objects WHERE `+where, args[:n]...).Scan(&page.Total); err != nil {
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
func (t Objects) Find(ctx context.Context, id string) (Object, error) {
	return scan(t.s.DB.QueryRowContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1`, id))
}

// Ready returns every object whose phase is Ready and that is not being deleted, oldest first:
// what a drift check compares with the cloud. Read in one query, since the sweep builds every
// one's manifest.
func (t Objects) Ready(ctx context.Context) ([]Object, error) {
	rows, err := t.s.DB.QueryContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE phase = 'Ready' AND NOT deleting ORDER BY created_at, id`)
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

// readByIDs reads the objects of ids, valid UUIDs, in one query (PostgreSQL).
func (t Objects) readByIDs(ctx context.Context, ids []string) (map[string]Object, error) {
	rows, err := t.s.DB.QueryContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, errors.Wrap(err, "read objects by id")
	}
	defer rows.Close()
	found := make(map[string]Object, len(ids))
	for rows.Next() {
		o, err := scan(rows)
		if err != nil {
			return nil, errors.Wrap(err, "read objects by id")
		}
		found[o.ID] = o
	}
	return found, errors.Wrap(rows.Err(), "read objects by id")
}

// readChanges is countChanges as the coalescer calls it: every read of the count waiting shares
// the one key, and so the one answer.
func (t Objects) readChanges(ctx context.Context, _ []struct{}) (map[struct{}]int64, error) {
	n, err := t.countChanges(ctx)
	if err != nil {
		return nil, err
	}
	return map[struct{}]int64{{}: n}, nil
}

// countChanges reads the count of changes in one query.
func (t Objects) countChanges(ctx context.Context) (int64, error) {
	var n int64
	if err := t.s.readRow(ctx, changesQuery).Scan(&n); err != nil {
		return 0, errors.Wrap(err, "count the changes")
	}
	return n, nil
}
