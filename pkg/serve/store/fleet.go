package store

import (
	"context"
	"encoding/json"

	"github.com/pkg/errors"
)

// JobStates counts River's jobs by state (available, scheduled, running, retryable, completed,
// discarded, cancelled, pending): what a scrape of the metrics reads.
func (j Jobs) JobStates(ctx context.Context) (map[string]int, error) {
	rows, err := j.s.DB.QueryContext(ctx, `SELECT state, count(*) FROM river_job GROUP BY state`)
	if err != nil {
		return nil, errors.Wrap(err, "count the jobs by state")
	}
	defer rows.Close()
	states := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, errors.Wrap(err, "count the jobs by state")
		}
		states[state] = n
	}
	return states, errors.Wrap(rows.Err(), "count the jobs by state")
}

// Fleet is what the objects' statuses of one controller sum up to.
type Fleet struct {
	// Conditions counts the objects by type (cluster, nodepool), condition type and status:
	// Conditions[{"cluster", "Ready", "True"}] is how many clusters are Ready.
	Conditions map[ConditionCount]int
	// MonthlyMin and MonthlyMax add up the objects' metadata.monthly_cost (USD): the fleet's bill.
	MonthlyMin, MonthlyMax float64
}

// ConditionCount is one key of Fleet.Conditions.
type ConditionCount struct{ ObjectType, Condition, Status string }

// Fleet reads every object's status as controller reported it, and sums up the conditions
// of the types asked for and the monthly cost. One query: a scrape of 10,000 objects reads
// their statuses once.
func (t Statuses) Fleet(ctx context.Context, controller string, conditions ...string) (Fleet, error) {
	rows, err := t.s.DB.QueryContext(ctx, `SELECT o.kind, st.conditions, st.metadata FROM clusterplane_objects o
		JOIN clusterplane_status st ON st.object_id = o.id WHERE st.controller_name = $1`, controller)
	if err != nil {
		return Fleet{}, errors.Wrap(err, "sum up the fleet's statuses")
	}
	defer rows.Close()
	f := Fleet{Conditions: map[ConditionCount]int{}}
	for rows.Next() {
		var kind string
		var conds, meta []byte
		if err := rows.Scan(&kind, &conds, &meta); err != nil {
			return Fleet{}, errors.Wrap(err, "sum up the fleet's statuses")
		}
		f.add(kind, conds, meta, conditions)
	}
	return f, errors.Wrap(rows.Err(), "sum up the fleet's statuses")
}

// add counts one object's status; a status that does not decode counts for nothing.
func (f *Fleet) add(kind string, conds, meta []byte, wanted []string) {
	var cs []Condition
	_ = json.Unmarshal(conds, &cs)
	for _, c := range cs {
		for _, w := range wanted {
			if c.Type == w {
				f.Conditions[ConditionCount{kind, c.Type, c.Status}]++
			}
		}
	}
	var m struct {
		Cost *struct {
			Min, Max float64
		} `json:"monthly_cost"`
	}
	if json.Unmarshal(meta, &m) == nil && m.Cost != nil {
		f.MonthlyMin += m.Cost.Min
		f.MonthlyMax += m.Cost.Max
	}
}
