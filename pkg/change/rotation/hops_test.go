package rotation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
)

// back is a Civo rotation of a pool that keeps its name: Civo cannot rename, so the workloads go
// to a surge pool and back to a new pool of the old name.
var back = func() rotation.Settings {
	p := plan
	p.Final, p.Back = "", "workers"
	return p
}()

// twoHops are the calls of a whole two-hop rotation, in order: each pool drained before it is
// deleted, the pool of the manifest's name created only once the old one is gone.
var twoHops = []string{"create workers-surge", "wait workers-surge", "cordon workers", "drain workers", "delete old-id",
	"create workers", "wait workers", "cordon workers-surge", "drain workers-surge", "delete workers-surge-id"}

// killed records as the world does, and fails (after recording) the save numbered at, as if the
// process died right after it.
type killed struct {
	*world
	at, n int
}

func (k *killed) Save(ctx context.Context, s rotation.State) error {
	if err := k.world.Save(ctx, s); err != nil {
		return err
	}
	k.n++
	if k.n == k.at {
		return errors.New("killed")
	}
	return nil
}

func TestARotationThatKeepsTheNameOnACloudThatCannotRenameGoesThereAndBack(t *testing.T) {
	w := newWorld()
	st, err := w.rotator().Run(context.Background(), back, rotation.State{ID: "r1", OldID: "old-id"})
	if err != nil || st.Phase != rotation.Done || st.SurgeID != "workers-id" {
		t.Fatalf("run: %+v, %v; want done with the new workers pool", st, err)
	}
	if !slices.Equal(w.calls, twoHops) {
		t.Errorf("calls %v, want %v", w.calls, twoHops)
	}
	if len(w.pools) != 1 || w.pools["workers"] != "workers-id" {
		t.Errorf("pools %v, want only a new workers pool", w.pools)
	}
	var phases []string
	for _, s := range w.saved {
		phases = append(phases, string(s.Phase))
	}
	want := " surge-created surge-ready cordoned drained old-deleted  surge-created surge-ready cordoned drained old-deleted done"
	if strings.Join(phases, " ") != want {
		t.Errorf("recorded %q, want %q", strings.Join(phases, " "), want)
	}
	if second := w.saved[6]; second.Hop != 1 || second.OldID != "workers-surge-id" || second.SurgeID != "" {
		t.Errorf("the second hop starts from %+v, want hop 1 draining the surge pool", second)
	}
}

func TestATwoHopRotationKilledAfterAnyRecordResumesDoingOnlyWhatIsLeft(t *testing.T) {
	// Twelve records in all (each hop's start, before its create, and twoHops' ten steps); a kill
	// after the last leaves nothing to do.
	for at := 1; at <= 12; at++ {
		w := newWorld()
		r := &rotation.Rotator{Cloud: w, Nodes: w, Recorder: &killed{world: w, at: at}}
		if _, err := r.Run(context.Background(), back, rotation.State{ID: "r1", OldID: "old-id"}); err == nil {
			t.Fatalf("killed at record %d, the run did not stop", at)
		}
		recorded := w.saved[len(w.saved)-1]
		first := slices.Clone(w.calls)
		w.calls = nil
		st, err := w.rotator().Run(context.Background(), back, recorded)
		if err != nil || st.Phase != rotation.Done {
			t.Fatalf("killed at record %d (%+v), resume: %+v, %v", at, recorded, st, err)
		}
		if got := append(first, w.calls...); !slices.Equal(got, twoHops) {
			t.Errorf("killed at record %d (%+v): calls %v then %v, want %v in all", at, recorded, first, w.calls, twoHops)
		}
		if len(w.pools) != 1 || w.pools["workers"] != "workers-id" {
			t.Errorf("killed at record %d: pools %v, want only the new workers pool", at, w.pools)
		}
	}
}

func TestAKillBeforeTheSecondHopRecordsItsPoolDoesNotCreateItTwice(t *testing.T) {
	// The first hop is done; the second hop's pool is created and the process dies before it
	// records so.
	w := newWorld()
	delete(w.pools, "workers")
	w.made("workers-surge")
	w.failSave = rotation.SurgeCreated
	start := rotation.State{ID: "r1", Hop: 1, OldID: "workers-surge-id"}
	if _, err := w.rotator().Run(context.Background(), back, start); err == nil {
		t.Fatal("the run with its record failing did not stop")
	}
	w.calls = nil
	st, err := w.rotator().Run(context.Background(), back, start)
	if err != nil || st.Phase != rotation.Done {
		t.Fatalf("resume: %+v, %v", st, err)
	}
	if !slices.Equal(w.calls, twoHops[6:]) {
		t.Errorf("the resumed hop called %v, want %v (the pool found, not created again)", w.calls, twoHops[6:])
	}
	if len(w.pools) != 1 || w.pools["workers"] != "workers-id" {
		t.Errorf("pools %v, want only the new workers pool", w.pools)
	}
}

func TestASecondHopStoppedAtItsDrainSaysItCanOnlyBeFinishedAndRefusesARollBack(t *testing.T) {
	w := newWorld()
	delete(w.pools, "workers")
	w.made("workers-surge")
	w.drainErr = errors.New("drain timed out after 1m0s: a PodDisruptionBudget allows no eviction")
	st, err := w.rotator().Run(context.Background(), back, rotation.State{ID: "r1", Hop: 1, OldID: "workers-surge-id"})
	var stopped *rotation.StoppedError
	if !errors.As(err, &stopped) || st.Phase != rotation.Cordoned || st.Hop != 1 {
		t.Fatalf("run: %+v, %v; want stopped at the second hop's cordon", st, err)
	}
	for _, want := range []string{"second hop", "workers-surge", "cordoned", "up again resumes", "cannot be rolled back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	w.calls = nil
	if _, err := w.rotator().Rollback(context.Background(), back, st); err == nil || !strings.Contains(err.Error(), "up again finishes it") {
		t.Errorf("rollback in the second hop: %v, want refused", err)
	}
	if len(w.calls) != 0 || len(w.pools) != 2 {
		t.Errorf("the refused rollback called %v, left pools %v", w.calls, w.pools)
	}
}
