// Package store keeps what `clusterplane serve` knows in PostgreSQL: the clusters and node pools
// clients asked for (each with its generation and resource version), the status controllers
// report on them, and the API tokens of bots and controllers (hashed). Every write that asks for
// a reconcile enqueues it in the same transaction (Store.Enqueue), so that a spec is never saved
// without the work that applies it, nor the work queued for a spec that was not saved.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pkg/errors"
)

// The kinds of object the API serves.
const (
	Cluster  = "cluster"
	NodePool = "nodepool"
)

// Object is one cluster or node pool as a client asked for it.
type Object struct {
	ID   string `json:"id"`
	Kind string `json:"-"`
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
)

// AnyVersion is If-Match: *, which RFC 9110 says matches any current version: a client that
// means to overwrite whatever is there says so.
const AnyVersion = "*"

// Enqueue queues the reconcile of one object inside tx, the transaction that writes it.
type Enqueue func(ctx context.Context, tx pgx.Tx, objectID string) error

// Store is the database of one or several `clusterplane serve` replicas.
type Store struct {
	Pool *pgxpool.Pool
	// Enqueue, when set, is called in the transaction of every write that needs a reconcile.
	Enqueue Enqueue
	// Summarise names the controller whose reports set an object's phase and health (the
	// service's own workers'); other controllers' reports are kept and shown beside it.
	Summarise string
}

// schema is the service's own tables; the queue's are River's (migrated by package reconcile).
// It is written so that replicas starting at once can all run it.
const schema = `
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
	revoked_at timestamptz
);
`

// schemaLock is the advisory lock that keeps replicas from creating the tables at once.
const schemaLock = 7_301_244_118

// Open connects to the database at url and creates the service's tables when they are missing.
func Open(ctx context.Context, url string) (*Store, error) {
	// The driver's errors may quote the URL, and with it the password.
	r := redact.New().WithURL(url)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, errors.Wrap(r.Error(err), "connect to the database (--database-url)")
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, r.Error(err)
	}
	return &Store{Pool: pool}, nil
}

func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return errors.Wrap(err, "connect to the database (--database-url)")
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, schemaLock); err != nil {
		return errors.Wrap(err, "lock the schema")
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, schemaLock) //nolint:errcheck // the lock goes with the session anyway
	_, err = conn.Exec(ctx, schema)
	return errors.Wrap(err, "create the service's tables")
}

// Close closes the database's connections.
func (s *Store) Close() { s.Pool.Close() }

const columns = `id, kind, name, coalesce(cluster_id::text, ''), spec, generation, resource_version, phase, health,
	deleting, stack_owned, created_at, updated_at, created_by`

func scan(row pgx.Row) (Object, error) {
	var o Object
	var rv int64
	var spec []byte
	err := row.Scan(&o.ID, &o.Kind, &o.Name, &o.ClusterID, &spec, &o.Generation, &rv, &o.Phase, &o.Health,
		&o.Deleting, &o.StackOwned, &o.CreatedAt, &o.UpdatedAt, &o.CreatedBy)
	if errors.Is(err, pgx.ErrNoRows) {
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
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if o.Kind == NodePool {
			var deleting bool
			err := tx.QueryRow(ctx, `SELECT deleting FROM clusterplane_objects WHERE id = $1 AND kind = 'cluster'`,
				o.ClusterID).Scan(&deleting)
			if errors.Is(err, pgx.ErrNoRows) {
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
		row := tx.QueryRow(ctx, `INSERT INTO clusterplane_objects (id, kind, name, cluster_id, spec, generation,
			resource_version, created_at, updated_at, created_by)
			VALUES ($1, $2, $3, $4, $5, 1, nextval('clusterplane_resource_version'), now(), now(), $6)
			RETURNING `+columns, uuid.NewString(), o.Kind, o.Name, cluster, []byte(o.Spec), o.CreatedBy)
		var err error
		if out, err = scan(row); err != nil {
			return nameTaken(err)
		}
		return s.enqueue(ctx, tx, out.ID)
	})
	return out, err
}

// nameTaken turns the unique index's refusal into ErrExists.
func nameTaken(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" {
		return ErrExists
	}
	return err
}

func (s *Store) enqueue(ctx context.Context, tx pgx.Tx, id string) error {
	if s.Enqueue == nil {
		return nil
	}
	return errors.Wrap(s.Enqueue(ctx, tx, id), "queue the reconcile")
}

func (s *Store) inTx(ctx context.Context, f func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.Pool, f)
}

// Get reads one object of the kind.
func (s *Store) Get(ctx context.Context, kind, id string) (Object, error) {
	if uuid.Validate(id) != nil {
		return Object{}, ErrNotFound
	}
	return scan(s.Pool.QueryRow(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`, id, kind))
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
func (s *Store) Update(ctx context.Context, kind, id, ifMatch string, c Change) (Object, error) {
	return s.conditional(ctx, kind, id, ifMatch, func(tx pgx.Tx, old Object) (pgx.Row, error) {
		if old.Deleting {
			return nil, ErrDeleting
		}
		generation := old.Generation
		if !sameJSON(old.Spec, c.Spec) {
			generation++
		}
		return tx.QueryRow(ctx, `UPDATE clusterplane_objects SET name = $2, spec = $3, generation = $4,
			resource_version = nextval('clusterplane_resource_version'), updated_at = now()
			WHERE id = $1 RETURNING `+columns, id, c.Name, []byte(c.Spec), generation), nil
	})
}

// Delete marks the object for deletion when ifMatch is its resource version, and enqueues the
// reconcile that destroys its stack (the row goes with Forget once it is destroyed). refuse, when
// set, is asked in the same transaction whether the object may go (a cluster with pools may not).
func (s *Store) Delete(ctx context.Context, kind, id, ifMatch string, refuse func(ctx context.Context, tx pgx.Tx, o Object) error) (Object, error) {
	return s.conditional(ctx, kind, id, ifMatch, func(tx pgx.Tx, old Object) (pgx.Row, error) {
		if refuse != nil {
			if err := refuse(ctx, tx, old); err != nil {
				return nil, err
			}
		}
		return tx.QueryRow(ctx, `UPDATE clusterplane_objects SET deleting = true, phase = 'Finalizing',
			resource_version = nextval('clusterplane_resource_version'), updated_at = now()
			WHERE id = $1 RETURNING `+columns, id), nil
	})
}

func (s *Store) conditional(ctx context.Context, kind, id, ifMatch string, write func(tx pgx.Tx, old Object) (pgx.Row, error)) (Object, error) {
	if uuid.Validate(id) != nil {
		return Object{}, ErrNotFound
	}
	var out Object
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := scan(tx.QueryRow(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2 FOR UPDATE`, id, kind))
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
func PoolsOf(ctx context.Context, tx pgx.Tx, clusterID string) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM clusterplane_objects WHERE cluster_id = $1`, clusterID).Scan(&n)
	return n, errors.Wrap(err, "count the cluster's pools")
}

// OwnStack records that the object's stack is its own: a worker found no stack made outside the
// API and is about to deploy one.
func (s *Store) OwnStack(ctx context.Context, id string) error {
	_, err := s.Pool.Exec(ctx, `UPDATE clusterplane_objects SET stack_owned = true WHERE id = $1`, id)
	return errors.Wrap(err, "record the stack as the object's")
}

// Forget removes a deleted object and its status, once its stack is destroyed.
func (s *Store) Forget(ctx context.Context, id string) error {
	_, err := s.Pool.Exec(ctx, `DELETE FROM clusterplane_objects WHERE id = $1 AND deleting`, id)
	return errors.Wrap(err, "forget the deleted object")
}

// Filter selects the objects a list returns.
type Filter struct {
	Kind      string
	ClusterID string
	Phase     string
	Health    string
	Limit     int
	Offset    int
}

// List returns one page of the objects the filter selects, oldest first, and how many it
// selects in all.
func (s *Store) List(ctx context.Context, f Filter) ([]Object, int, error) {
	where := `kind = $1 AND ($2 = '' OR cluster_id::text = $2) AND ($3 = '' OR phase = $3) AND ($4 = '' OR health = $4)`
	args := []any{f.Kind, f.ClusterID, f.Phase, f.Health}
	var total int
	if err := s.Pool.QueryRow(ctx, `SELECT count(*) FROM clusterplane_objects WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, errors.Wrap(err, "count the objects")
	}
	rows, err := s.Pool.Query(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE `+where+
		` ORDER BY created_at, id LIMIT $5 OFFSET $6`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, errors.Wrap(err, "list the objects")
	}
	defer rows.Close()
	out := []Object{}
	for rows.Next() {
		o, err := scan(rows)
		if err != nil {
			return nil, 0, errors.Wrap(err, "read an object")
		}
		out = append(out, o)
	}
	return out, total, errors.Wrap(rows.Err(), "list the objects")
}

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

// Find reads one object of either kind (a reconcile knows only the id).
func (s *Store) Find(ctx context.Context, id string) (Object, error) {
	return scan(s.Pool.QueryRow(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1`, id))
}
