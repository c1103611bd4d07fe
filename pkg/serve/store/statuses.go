package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/pkg/errors"
)

// Statuses keeps what controllers report on the objects: each controller's conditions and
// metadata for the generation it saw, and the phase and health they sum up to on the object.
type Statuses struct{ s *Store }

// Statuses is the store's controllers' reports.
func (s *Store) Statuses() Statuses { return Statuses{s} }

// Condition is one aspect of an object's state as a controller last saw it, in the shape the
// seed's API and Kubernetes use.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"` // True, False or Unknown
	LastTransitionTime time.Time `json:"lastTransitionTime"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
}

// ControllerStatus is what one controller reports about one object, for the generation it saw.
type ControllerStatus struct {
	ControllerName     string         `json:"controller_name"`
	ObservedGeneration int64          `json:"observed_generation"`
	Conditions         []Condition    `json:"conditions"`
	Metadata           map[string]any `json:"metadata,omitempty"`
	UpdatedAt          time.Time      `json:"updated_at"`
}

// Condition returns the condition of that type, and whether there is one.
func (c ControllerStatus) Condition(typ string) (Condition, bool) {
	for _, cond := range c.Conditions {
		if cond.Type == typ {
			return cond, true
		}
	}
	return Condition{}, false
}

// Put records a controller's status of an object. A condition whose status did not
// change keeps the time it last changed, whatever the controller sent, so that the time says
// when it became so. The object's phase and health follow the report (Phase, Health); its
// resource version does not change: a status report is not a change of what the client asked
// for, and a client's conditional write must not lose to a controller's report.
func (t Statuses) Put(ctx context.Context, objectType, id string, st ControllerStatus) error {
	return t.Edit(ctx, objectType, id, st.ControllerName, func(Object, *ControllerStatus) (ControllerStatus, bool) {
		return st, true
	})
}

// Edit writes the status edit makes of a controller's last one (nil when it has none), as Put
// does, under the object's row lock: a report computed from what was read, such as a
// drift check's, is written only if the object and its status are still as edit wants them.
// edit answers false to write nothing.
func (t Statuses) Edit(ctx context.Context, objectType, id, controller string,
	edit func(o Object, prior *ControllerStatus) (ControllerStatus, bool)) error {
	if uuid.Validate(id) != nil {
		return ErrNotFound
	}
	s := t.s
	return s.inTx(ctx, func(tx *sql.Tx) error {
		o, err := scan(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = $1 AND kind = $2`+s.dialect.forUpdate, id, objectType))
		if err != nil {
			return err
		}
		prior, err := readStatus(tx.QueryRowContext(ctx, `SELECT controller_name, observed_generation, conditions, metadata, updated_at
			FROM clusterplane_status WHERE object_id = $1 AND controller_name = $2`, id, controller))
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		st, write := edit(o, prior)
		if !write {
			return nil
		}
		// A report is of a generation the object has had: 1 when created, one more at each
		// change of its spec. Checked here, under the row lock, so that it holds against the
		// generation the report is written beside.
		if st.ObservedGeneration < 1 || st.ObservedGeneration > o.Generation {
			return &GenerationError{Observed: st.ObservedGeneration, Current: o.Generation}
		}
		st.ControllerName = controller
		var before []Condition
		if prior != nil {
			before = prior.Conditions
		}
		st.Conditions = keepTransitions(before, st.Conditions)
		st.UpdatedAt = time.Now().UTC()
		conditions, err := json.Marshal(st.Conditions)
		if err != nil {
			return errors.Wrap(err, "encode the conditions")
		}
		if st.Metadata == nil {
			st.Metadata = map[string]any{}
		}
		metadata, err := json.Marshal(st.Metadata)
		if err != nil {
			return errors.Wrap(err, "encode the metadata")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO clusterplane_status (object_id, controller_name, observed_generation, conditions, metadata, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (object_id, controller_name) DO UPDATE SET
			observed_generation = excluded.observed_generation, conditions = excluded.conditions,
			metadata = excluded.metadata, updated_at = excluded.updated_at`,
			id, st.ControllerName, st.ObservedGeneration, string(conditions), string(metadata), st.UpdatedAt); err != nil {
			return errors.Wrap(err, "write the status")
		}
		if s.Summarise != "" && st.ControllerName != s.Summarise {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE clusterplane_objects SET phase = $2, health = $3 WHERE id = $1`,
			id, Phase(o, st), Health(st))
		return errors.Wrap(err, "write the phase")
	})
}

// GenerationError is a report's observed_generation that the object never had: below 1 or
// above its current generation.
type GenerationError struct {
	Observed, Current int64
}

func (e *GenerationError) Error() string {
	return fmt.Sprintf("must be from 1 to the object's current generation %d, not %d", e.Current, e.Observed)
}

// readStatus reads one controller's status row; sql.ErrNoRows when there is none.
func readStatus(r row) (*ControllerStatus, error) {
	var st ControllerStatus
	var conditions, metadata []byte
	if err := r.Scan(&st.ControllerName, &st.ObservedGeneration, &conditions, &metadata, &st.UpdatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, errors.Wrap(err, "read the status")
	}
	if err := json.Unmarshal(conditions, &st.Conditions); err != nil {
		return nil, errors.Wrap(err, "read the conditions")
	}
	if err := json.Unmarshal(metadata, &st.Metadata); err != nil {
		return nil, errors.Wrap(err, "read the metadata")
	}
	st.UpdatedAt = st.UpdatedAt.UTC()
	return &st, nil
}

// keepTransitions keeps the time a condition last changed where its status is the one before.
func keepTransitions(old, now []Condition) []Condition {
	at := time.Now().UTC().Truncate(time.Second)
	for i, c := range now {
		if c.LastTransitionTime.IsZero() {
			now[i].LastTransitionTime = at
		}
		for _, o := range old {
			if o.Type == c.Type && o.Status == c.Status {
				now[i].LastTransitionTime = o.LastTransitionTime
			}
		}
	}
	return now
}

// Phase is the object's phase, which lists filter on (status=): Finalizing while it is being
// deleted, Ready when Ready is True for the generation asked, Progressing while work is under
// way, Failed when Ready is False for another reason, else Pending.
func Phase(o Object, st ControllerStatus) string {
	ready, _ := st.Condition("Ready")
	progressing, _ := st.Condition("Progressing")
	switch {
	case o.Deleting:
		return "Finalizing"
	case progressing.Status == "True":
		return "Progressing"
	case ready.Status == "True" && st.ObservedGeneration == o.Generation:
		return "Ready"
	case ready.Status == "False":
		return "Failed"
	}
	return "Pending"
}

// Health is the object's health, which lists filter on (health=): Degraded, Drifted, Healthy
// when ready, else Unknown.
func Health(st ControllerStatus) string {
	for _, typ := range []string{"Degraded", "Drifted"} {
		if c, _ := st.Condition(typ); c.Status == "True" {
			return typ
		}
	}
	if c, _ := st.Condition("Ready"); c.Status == "True" {
		return "Healthy"
	}
	return "Unknown"
}

// List returns every controller's status of an object.
func (t Statuses) List(ctx context.Context, objectType, id string) ([]ControllerStatus, error) {
	if _, err := t.s.Objects().Get(ctx, objectType, id); err != nil {
		return nil, err
	}
	rows, err := t.s.DB.QueryContext(ctx, `SELECT controller_name, observed_generation, conditions, metadata, updated_at
		FROM clusterplane_status WHERE object_id = $1 ORDER BY controller_name`, id)
	if err != nil {
		return nil, errors.Wrap(err, "read the status")
	}
	defer rows.Close()
	out := []ControllerStatus{}
	for rows.Next() {
		st, err := readStatus(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *st)
	}
	return out, errors.Wrap(rows.Err(), "read the status")
}
