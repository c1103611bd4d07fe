package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/google/uuid"
)

// Reads by id sent at once are answered from one query on PostgreSQL (store.joined): each must
// still get its own object, and nothing of another kind, another id, or another read's.
func TestReadsSentAtOnceEachGetTheirOwnObject(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		cluster, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "c", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		var pools []store.Object
		for i := range 40 {
			p, err := st.Objects().Create(ctx, store.Object{Type: store.NodePool, ClusterID: cluster.ID, Name: fmt.Sprintf("p%d", i),
				Spec: json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)), CreatedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			pools = append(pools, p)
		}
		type read struct {
			kind, id string
			want     *store.Object // nil: not found
		}
		var reads []read
		for i, p := range pools {
			reads = append(reads, read{store.NodePool, p.ID, &pools[i]})
			// The same object twice at once, and by its id in capitals, which PostgreSQL reads alike.
			reads = append(reads, read{store.NodePool, strings.ToUpper(p.ID), &pools[i]})
		}
		reads = append(reads,
			read{store.NodePool, cluster.ID, nil}, // a cluster asked for as a pool
			read{store.Cluster, pools[0].ID, nil}, // a pool asked for as a cluster
			read{store.Cluster, cluster.ID, &cluster},
			read{store.NodePool, uuid.NewString(), nil},
			read{store.NodePool, "not-a-uuid", nil},
		)
		for round := range 5 {
			var wg sync.WaitGroup
			errs := make([]error, len(reads))
			for i, r := range reads {
				wg.Go(func() {
					got, err := st.Objects().Get(ctx, r.kind, r.id)
					switch {
					case r.want == nil && !errors.Is(err, store.ErrNotFound):
						errs[i] = fmt.Errorf("%s %s: got %v, %v; want not found", r.kind, r.id, got.ID, err)
					case r.want != nil && err != nil:
						errs[i] = fmt.Errorf("%s %s: %v", r.kind, r.id, err)
					case r.want != nil && (got.ID != r.want.ID || string(got.Spec) != string(r.want.Spec) || got.Type != r.want.Type):
						errs[i] = fmt.Errorf("%s %s: got %s %s %s, want %s %s", r.kind, r.id, got.Type, got.ID, got.Spec, r.want.ID, r.want.Spec)
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("round %d:\n%v", round, err)
			}
		}
	})
}

// A read asked after a write returned sees that write, however many reads run beside it: reads
// sent at once share a query only if it started after each of them was asked. So does a count of
// changes.
func TestAReadAfterAWriteSeesItWhileOtherReadsRunBeside(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "c", Spec: json.RawMessage(`{"n": 0}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		id := o.ID
		// Readers keep the reads' queries busy, so that the writer's reads must wait for one.
		stop := make(chan struct{})
		var readers sync.WaitGroup
		for range 8 {
			readers.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						_, _ = st.Objects().Get(ctx, store.Cluster, id)
						_, _ = st.Objects().Changes(ctx)
					}
				}
			})
		}
		defer func() { close(stop); readers.Wait() }()
		counted, err := st.Objects().Changes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 60; n++ {
			updated, err := st.Objects().Update(ctx, store.Cluster, o.ID, o.ResourceVersion, store.Change{Name: "c", Spec: json.RawMessage(`{"n": ` + strconv.Itoa(n) + `}`)})
			if err != nil {
				t.Fatal(err)
			}
			o = updated
			got, err := st.Objects().Get(ctx, store.Cluster, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.ResourceVersion != o.ResourceVersion {
				t.Fatalf("after write %d the read saw version %s, not the written %s", n, got.ResourceVersion, o.ResourceVersion)
			}
			// The count of changes, which answers saved by a replica are checked against, too.
			now, err := st.Objects().Changes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if now <= counted {
				t.Fatalf("after write %d the count of changes is %d, as before it", n, now)
			}
			counted = now
		}
	})
}

// A read whose request is cancelled gives up alone: the reads that share its query still get
// their answers.
func TestACancelledReadDoesNotFailTheReadsBesideIt(t *testing.T) {
	onEachDatabase(t, func(t *testing.T, st *store.Store, _ *int) {
		ctx := context.Background()
		o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "c", Spec: json.RawMessage(`{}`), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			cancelled, cancel := context.WithCancel(ctx)
			var wg sync.WaitGroup
			errs := make([]error, 10)
			for i := range errs {
				wg.Go(func() {
					if i%2 == 0 {
						_, _ = st.Objects().Get(cancelled, store.Cluster, o.ID)
						return
					}
					_, errs[i] = st.Objects().Get(ctx, store.Cluster, o.ID)
				})
			}
			cancel()
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
		}
	})
}
