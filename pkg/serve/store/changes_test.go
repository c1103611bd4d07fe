package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// A list page served again is right only while the change count stays: every write to an
// object, whichever way it is made, must move it, and a write that is rolled back must not.
func TestEveryWriteToAnObjectMovesTheChangeCountAndARolledBackOneDoesNot(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		st.Summarise = "clusterplane"
		spec := json.RawMessage(`{"a": 1}`)
		var cluster, pool store.Object
		tests := []struct {
			name  string
			write func() error
			moves bool
		}{
			{"creating a cluster", func() (err error) {
				cluster, err = st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "c", Spec: spec, CreatedBy: "test"})
				return err
			}, true},
			{"creating a pool", func() (err error) {
				pool, err = st.Objects().Create(ctx, store.Object{Type: store.NodePool, Name: "p", ClusterID: cluster.ID, Spec: spec, CreatedBy: "test"})
				return err
			}, true},
			{"changing a pool's spec", func() (err error) {
				pool, err = st.Objects().Update(ctx, store.NodePool, pool.ID, store.AnyVersion, store.Change{Name: "p", Spec: json.RawMessage(`{"a": 2}`)})
				return err
			}, true},
			{"serve's workers reporting the pool Ready", func() error {
				return st.Statuses().Put(ctx, store.NodePool, pool.ID, store.ControllerStatus{ControllerName: "clusterplane", ObservedGeneration: pool.Generation,
					Conditions: []store.Condition{{Type: "Ready", Status: "True", Reason: "Test"}}})
			}, true},
			{"a write refused for a stale version", func() error {
				_, err := st.Objects().Update(ctx, store.NodePool, pool.ID, "1", store.Change{Name: "p", Spec: spec})
				if !errors.Is(err, store.ErrStale) {
					return errors.New("the stale write was not refused")
				}
				return nil
			}, false},
			{"a pool's create refused for a taken name", func() error {
				_, err := st.Objects().Create(ctx, store.Object{Type: store.NodePool, Name: "p", ClusterID: cluster.ID, Spec: spec, CreatedBy: "test"})
				if !errors.Is(err, store.ErrExists) {
					return errors.New("the taken name was not refused")
				}
				return nil
			}, false},
			{"deleting the pool", func() error {
				_, err := st.Objects().Delete(ctx, store.NodePool, pool.ID, store.AnyVersion, nil)
				return err
			}, true},
			{"forgetting the deleted pool", func() error { return st.Objects().Forget(ctx, pool.ID) }, true},
		}
		for _, tt := range tests {
			before, err := st.Objects().Changes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.write(); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			after, err := st.Objects().Changes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if moved := after != before; moved != tt.moves {
				t.Errorf("%s: the change count went from %d to %d; want it moved: %v", tt.name, before, after, tt.moves)
			}
		}
	})
}

// A page says the change count it was read at, the one Changes says while nothing is written.
func TestAListSaysTheChangeCountItWasReadAt(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		if _, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "c", Spec: json.RawMessage(`{}`), CreatedBy: "test"}); err != nil {
			t.Fatal(err)
		}
		page, err := st.Objects().List(ctx, store.Filter{Type: store.Cluster, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		now, err := st.Objects().Changes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if page.Changes == 0 || page.Changes != now {
			t.Errorf("the page was read at %d changes, the table has had %d", page.Changes, now)
		}
	})
}
