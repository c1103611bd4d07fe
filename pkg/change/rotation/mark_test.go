package rotation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
)

// saving records, as the world does, and notes each save among the cloud's calls, so that a test
// reads whether the record came before the create.
type saving struct{ *world }

func (s saving) Save(ctx context.Context, st rotation.State) error {
	s.calls = append(s.calls, "save "+string(st.Phase))
	return s.world.Save(ctx, st)
}

func TestARotationRecordsItsIdBeforeItCreatesTheSurgePool(t *testing.T) {
	w := newWorld()
	r := &rotation.Rotator{Cloud: w, Nodes: w, Recorder: saving{w}}
	if _, err := r.Run(context.Background(), plan, rotation.State{ID: "r1", OldID: "old-id"}); err != nil {
		t.Fatal(err)
	}
	save, create := slices.Index(w.calls, "save "), slices.Index(w.calls, "create workers-surge")
	if save < 0 || create < 0 || save > create {
		t.Errorf("calls %v: want the start recorded before the create", w.calls)
	}
	if w.saved[0].ID != "r1" {
		t.Errorf("the first record %+v does not name the rotation", w.saved[0])
	}
	if got := w.marks["workers-surge-id"]; got != plan.Mark {
		t.Errorf("the surge pool carries mark %q, want %q", got, plan.Mark)
	}
}

// Promise: rotation-leaves-foreign-surge-pool
func TestAPoolOfTheSurgeNameThatTheRotationDidNotMakeStopsItAndIsNeverTouched(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state rotation.State
	}{
		{"at the start", rotation.State{ID: "r1", OldID: "old-id"}},
		{"after a kill that left no record of the create", rotation.State{ID: "r1", Phase: rotation.Start, OldID: "old-id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			w.pools["workers-surge"] = "theirs" // a user's own pool, another size, no mark
			_, err := w.rotator().Run(context.Background(), plan, tc.state)
			var foreign *rotation.ForeignPoolError
			if !errors.As(err, &foreign) || foreign.ID != "theirs" {
				t.Fatalf("run: %v, want the foreign pool named", err)
			}
			if !strings.Contains(err.Error(), "workers-surge") || !strings.Contains(err.Error(), "did not create") {
				t.Errorf("error %q does not name the pool and say it is not the rotation's", err)
			}
			if len(w.calls) != 0 {
				t.Errorf("calls %v, want none: nothing created, nothing drained", w.calls)
			}
			// Nothing was started, so nothing is recorded: status must not read a rotation under way.
			if len(w.saved) != 0 {
				t.Errorf("recorded %+v, want nothing: the rotation stopped before it began", w.saved)
			}
			// And a roll-back of that stopped rotation leaves the user's pool alone.
			if _, err := w.rotator().Rollback(context.Background(), plan, tc.state); err != nil {
				t.Fatalf("rollback: %v", err)
			}
			if w.pools["workers-surge"] != "theirs" || slices.ContainsFunc(w.calls, func(c string) bool { return strings.HasPrefix(c, "delete") }) {
				t.Errorf("the roll-back touched the user's pool: calls %v, pools %v", w.calls, w.pools)
			}
		})
	}
}

// Promise: rotation-finds-pools-by-mark
func TestAKillRightAfterTheCreateThenARollBackDeletesTheSurgePoolItMade(t *testing.T) {
	// The create returned and the process died before it recorded so: the record says the start
	// (written before the create), and names the rotation, whose mark the pool carries.
	w := newWorld()
	w.failSave = rotation.SurgeCreated
	if _, err := w.rotator().Run(context.Background(), plan, rotation.State{ID: "r1", OldID: "old-id"}); err == nil {
		t.Fatal("the run with its record failing did not stop")
	}
	recorded := w.saved[len(w.saved)-1]
	if recorded.Phase != rotation.Start || recorded.ID != "r1" || recorded.SurgeID != "" {
		t.Fatalf("recorded %+v, want the start of rotation r1 with no surge id", recorded)
	}
	w.calls = nil
	if _, err := w.rotator().Rollback(context.Background(), plan, recorded); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if want := []string{"delete workers-surge-id"}; !slices.Equal(w.calls, want) {
		t.Errorf("rollback calls %v, want %v", w.calls, want)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "old-id" {
		t.Errorf("pools after the rollback %v, want the old one alone: nothing orphaned", w.pools)
	}
}

// failingDelete fails every delete, as if the process were killed while deleting.
type failingDelete struct{ *world }

func (f failingDelete) Delete(context.Context, string) error { return errors.New("killed") }

// Promise: stopped-rollback-known
func TestARollBackKilledDuringItsDeleteIsKnownAsOneAndFinishedByTheNextUp(t *testing.T) {
	w := newWorld()
	st := rotation.State{ID: "r1", Phase: rotation.SurgeReady, OldID: "old-id", SurgeID: w.made("workers-surge")}
	r := &rotation.Rotator{Cloud: failingDelete{w}, Nodes: w, Recorder: w}
	_, err := r.Rollback(context.Background(), plan, st)
	if err == nil {
		t.Fatal("the roll-back whose delete failed did not stop")
	}
	recorded := w.saved[len(w.saved)-1]
	if recorded.Phase != rotation.RollingBack {
		t.Fatalf("recorded %+v, want the roll-back recorded before its delete", recorded)
	}
	// What the user reads must not claim both pools are in place: the roll-back was under way.
	if msg := (&rotation.StoppedError{Settings: plan, State: recorded, Err: errors.New("killed")}).Error(); strings.Contains(msg, "both pools are in place") ||
		!strings.Contains(msg, "roll-back") {
		t.Errorf("after a killed roll-back the message says %q", msg)
	}
	// The next up with the manifest that asks for the rotation finishes the roll-back first, then
	// rotates from the start: one surge pool, never two.
	w.calls = nil
	final, err := w.rotator().Run(context.Background(), plan, recorded)
	if err != nil || final.Phase != rotation.Done {
		t.Fatalf("run after the killed roll-back: %+v, %v", final, err)
	}
	if want := append([]string{"delete workers-surge-id"}, all...); !slices.Equal(w.calls, want) {
		t.Errorf("calls %v, want %v", w.calls, want)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "workers-surge-id" {
		t.Errorf("pools %v, want one pool of the manifest's name", w.pools)
	}
}

func TestAMarkNamesItsStackAndRotationAndReadsBack(t *testing.T) {
	m := rotation.NewMark("do-nodepool/workers-prod", rotation.NewID())
	got, ok := rotation.ParseMark(m.String())
	if !ok || got != m {
		t.Fatalf("ParseMark(%q) = %+v, %v; want %+v", m, got, ok, m)
	}
	if m.Stack == rotation.StackDigest("do-nodepool/workers-dev") {
		t.Errorf("two stacks share a digest")
	}
	for _, bad := range []string{"", "workers-surge", "abc-def", strings.Repeat("a", 12) + "-" + strings.Repeat("g", 12)} {
		if _, ok := rotation.ParseMark(bad); ok {
			t.Errorf("ParseMark(%q) took it as a mark", bad)
		}
	}
}
