package rotation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
)

// world is a fake cloud and cluster: the pools by name, and every call made, in order.
type world struct {
	pools map[string]string // name → id
	// marks are the pools' marks, by id; a pool made outside the rotation has none.
	marks    map[string]string
	calls    []string
	drainErr error
	// failSave fails the save of that phase once, as if the process died right after the step.
	failSave rotation.Phase
	saved    []rotation.State
}

func newWorld() *world {
	return &world{pools: map[string]string{"workers": "old-id"}, marks: map[string]string{}, failSave: "never"}
}

func (w *world) Find(_ context.Context, name, mark string) (string, error) {
	id := w.pools[name]
	if id != "" && w.marks[id] != mark {
		return "", &rotation.ForeignPoolError{Cluster: "c", Name: name, ID: id}
	}
	return id, nil
}
func (w *world) Create(_ context.Context, name, mark string) (string, error) {
	w.calls = append(w.calls, "create "+name)
	w.pools[name] = name + "-id"
	w.marks[name+"-id"] = mark
	return name + "-id", nil
}

// made puts in the pool this rotation would have created: named name, carrying its mark.
func (w *world) made(name string) string {
	w.pools[name] = name + "-id"
	w.marks[name+"-id"] = plan.Mark
	return name + "-id"
}
func (w *world) Delete(_ context.Context, id string) error {
	w.calls = append(w.calls, "delete "+id)
	for name, pid := range w.pools {
		if pid == id {
			delete(w.pools, name)
		}
	}
	return nil
}
func (w *world) Rename(_ context.Context, id, name string) error {
	w.calls = append(w.calls, "rename "+id+" "+name)
	for old, pid := range w.pools {
		if pid == id {
			delete(w.pools, old)
			w.pools[name] = id
		}
	}
	return nil
}
func (w *world) Selector(id, name string) map[string]string {
	return map[string]string{"doks.digitalocean.com/node-pool-id": id}
}
func (w *world) WaitReady(_ context.Context, p rotation.Pool, count int, _ time.Duration) error {
	w.calls = append(w.calls, "wait "+p.Name)
	return nil
}
func (w *world) Cordon(_ context.Context, p rotation.Pool) error {
	w.calls = append(w.calls, "cordon "+p.Name)
	return nil
}
func (w *world) Uncordon(_ context.Context, p rotation.Pool) error {
	w.calls = append(w.calls, "uncordon "+p.Name)
	return nil
}
func (w *world) Drain(_ context.Context, p rotation.Pool, _ rotation.DrainOptions) error {
	w.calls = append(w.calls, "drain "+p.Name)
	return w.drainErr
}
func (w *world) Save(_ context.Context, s rotation.State) error {
	if s.Phase == w.failSave {
		w.failSave = "never"
		return errors.New("killed")
	}
	w.saved = append(w.saved, s)
	return nil
}

func (w *world) rotator() *rotation.Rotator {
	return &rotation.Rotator{Cloud: w, Nodes: w, Recorder: w}
}

var plan = rotation.Settings{Old: "workers", Surge: "workers-surge", Final: "workers", Mark: "m1", Nodes: 2, ReadyTimeout: time.Minute,
	Drain: rotation.DrainOptions{Timeout: time.Minute}}

// all are the calls of a whole rotation, in order: the old pool is drained before it is deleted.
var all = []string{"create workers-surge", "wait workers-surge", "cordon workers", "drain workers", "delete old-id",
	"rename workers-surge-id workers"}

func TestARotationRunsEveryStepInOrderAndEndsWithOnePoolOfTheManifestsName(t *testing.T) {
	w := newWorld()
	st, err := w.rotator().Run(context.Background(), plan, rotation.State{ID: "r1", OldID: "old-id"})
	if err != nil || st.Phase != rotation.Done {
		t.Fatalf("run: %+v, %v", st, err)
	}
	if !slices.Equal(w.calls, all) {
		t.Errorf("calls %v, want %v", w.calls, all)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "workers-surge-id" {
		t.Errorf("pools %v, want only workers, the surge pool renamed", w.pools)
	}
	var phases []string
	for _, s := range w.saved {
		phases = append(phases, string(s.Phase))
	}
	// The first record, of the start with the rotation's id, comes before the create.
	if want := " surge-created surge-ready cordoned drained old-deleted done"; strings.Join(phases, " ") != want {
		t.Errorf("recorded %v, want %s", phases, want)
	}
}

func TestARotationResumesFromEveryRecordedPhaseDoingOnlyWhatIsLeft(t *testing.T) {
	for i, phase := range []rotation.Phase{rotation.Start, rotation.SurgeCreated, rotation.SurgeReady, rotation.Cordoned,
		rotation.Drained, rotation.OldDeleted} {
		t.Run("after "+string(phase), func(t *testing.T) {
			w := newWorld()
			st := rotation.State{ID: "r1", Phase: phase, OldID: "old-id"}
			if i > 0 {
				st.SurgeID = w.made("workers-surge")
			}
			if i > 4 {
				delete(w.pools, "workers")
			}
			st, err := w.rotator().Run(context.Background(), plan, st)
			if err != nil || st.Phase != rotation.Done {
				t.Fatalf("run: %+v, %v", st, err)
			}
			if !slices.Equal(w.calls, all[i:]) {
				t.Errorf("calls %v, want %v", w.calls, all[i:])
			}
		})
	}
}

func TestAKillBetweenAStepAndItsRecordRepeatsNothingHarmful(t *testing.T) {
	// The surge pool was created, and the process died before it recorded so: up again finds
	// the pool instead of creating a second one.
	w := newWorld()
	w.failSave = rotation.SurgeCreated
	st, err := w.rotator().Run(context.Background(), plan, rotation.State{ID: "r1", OldID: "old-id"})
	if err == nil {
		t.Fatalf("the first run did not stop: %+v", st)
	}
	recorded := rotation.State{ID: "r1", OldID: "old-id"} // nothing was recorded
	w.calls = nil
	st, err = w.rotator().Run(context.Background(), plan, recorded)
	if err != nil || st.Phase != rotation.Done {
		t.Fatalf("resume: %+v, %v", st, err)
	}
	if slices.Contains(w.calls, "create workers-surge") {
		t.Errorf("the resumed rotation created the surge pool again: %v", w.calls)
	}
	if !slices.Equal(w.calls, all[1:]) {
		t.Errorf("calls %v, want %v", w.calls, all[1:])
	}
}

// Promise: rotation-stops-with-both-pools
func TestADrainThatTimesOutStopsWithBothPoolsAndTheOldOneCordonedAndSaysHowToGoOnOrBack(t *testing.T) {
	w := newWorld()
	w.drainErr = errors.New("drain timed out after 1m0s: a PodDisruptionBudget allows no eviction")
	st, err := w.rotator().Run(context.Background(), plan, rotation.State{ID: "r1", OldID: "old-id"})
	var stopped *rotation.StoppedError
	if !errors.As(err, &stopped) || st.Phase != rotation.Cordoned {
		t.Fatalf("run: %+v, %v; want stopped at cordoned", st, err)
	}
	if len(w.pools) != 2 || slices.ContainsFunc(w.calls, func(c string) bool { return strings.HasPrefix(c, "delete") }) {
		t.Errorf("pools %v, calls %v: want both pools, nothing deleted", w.pools, w.calls)
	}
	for _, want := range []string{"PodDisruptionBudget", "both pools are in place", "cordoned", "up again resumes", "roll back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	w.calls = nil
	st, err = w.rotator().Rollback(context.Background(), plan, st)
	if err != nil || st.Phase != rotation.Start {
		t.Fatalf("rollback: %+v, %v", st, err)
	}
	if want := []string{"uncordon workers", "delete workers-surge-id"}; !slices.Equal(w.calls, want) {
		t.Errorf("rollback calls %v, want %v", w.calls, want)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "old-id" {
		t.Errorf("pools after the rollback %v, want the old one alone", w.pools)
	}
}

func TestARollBackBeforeTheCordonOnlyDeletesTheSurgePoolAndAsksNothingOfTheCluster(t *testing.T) {
	w := newWorld()
	w.made("workers-surge")
	st, err := w.rotator().Rollback(context.Background(), plan, rotation.State{ID: "r1", Phase: rotation.SurgeReady, OldID: "old-id", SurgeID: "workers-surge-id"})
	if err != nil || st.Phase != rotation.Start {
		t.Fatalf("rollback: %+v, %v", st, err)
	}
	if want := []string{"delete workers-surge-id"}; !slices.Equal(w.calls, want) {
		t.Errorf("rollback calls %v, want %v", w.calls, want)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "old-id" {
		t.Errorf("pools after the rollback %v, want the old one alone", w.pools)
	}
}

func TestARotationPastItsDrainCannotBeRolledBack(t *testing.T) {
	w := newWorld()
	if _, err := w.rotator().Rollback(context.Background(), plan, rotation.State{ID: "r1", Phase: rotation.Drained, OldID: "old-id"}); err == nil ||
		!strings.Contains(err.Error(), "up again finishes it") {
		t.Errorf("rollback after the drain: %v, want refused", err)
	}
	if len(w.calls) != 0 {
		t.Errorf("calls %v, want none", w.calls)
	}
}

func TestACloudThatCannotRenameKeepsTheSurgePoolsName(t *testing.T) {
	w := newWorld()
	p := plan
	p.Final = ""
	if _, err := w.rotator().Run(context.Background(), p, rotation.State{ID: "r1", OldID: "old-id"}); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(w.calls, func(c string) bool { return strings.HasPrefix(c, "rename") }) || w.pools["workers-surge"] == "" {
		t.Errorf("calls %v, pools %v: want no rename", w.calls, w.pools)
	}
}
