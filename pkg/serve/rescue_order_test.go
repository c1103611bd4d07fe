package serve_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// A replica killed in the middle of a job while a backlog waits (a fault trial: 57 jobs queued
// behind it): the rescued job keeps its place in the queue and runs before every job queued
// after it, rather than behind the whole backlog while its object says Progressing.
func TestARescuedJobRunsBeforeTheJobsQueuedAfterIt(t *testing.T) {
	const backlog = 4
	for _, db := range databases {
		t.Run(db.name+": the killed replica's job runs first", func(t *testing.T) {
			url := db.url(t)
			ctx := context.Background()
			// The replica that dies: it took the first cluster's job and was killed, leaving the
			// job running and its lease run out; the backlog was queued meanwhile.
			dead, err := serve.Open(ctx, serve.Options{DatabaseURL: url, Kinds: registry.Kinds(), StackTimeout: time.Minute, RescueAfter: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			token, err := serve.CreateToken(ctx, dead.Store, "killed", auth.Editor, "")
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(dead.Server.Handler())
			s := &service{t: t, url: ts.URL, tokens: map[auth.Role]string{auth.Editor: token}}
			_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
			id, _ := c["id"].(string)
			var job int64
			if err := dead.Store.DB.QueryRow(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = scheduled_at
				WHERE kind = 'clusterplane_reconcile' RETURNING id`).Scan(&job); err != nil {
				t.Fatal(err)
			}
			if _, err := dead.Store.Renew(ctx, store.Lease{JobID: job, Attempt: 1, ObjectID: id, Replica: "killed", Expires: time.Now().Add(-time.Second)}); err != nil {
				t.Fatal(err)
			}
			for i := range backlog {
				if code, out := s.call(auth.Editor, "POST", "/api/v1/clusters", strings.Replace(doCluster, "api-fra1", fmt.Sprintf("backlog-%d", i), 1)); code != 201 {
					t.Fatalf("queue the backlog: %d %v", code, out)
				}
			}
			ts.Close()

			// A replica's rescuer finds the lease run out and gives the job back.
			rescuer := &reconcile.Rescuer{Store: dead.Store, River: dead.River, TTL: reconcile.LeaseTTL, Every: reconcile.RescueEvery}
			if rescued, err := rescuer.Once(ctx); err != nil || !slices.Equal(rescued, []int64{job}) {
				t.Fatalf("rescued %v (%v), want the killed replica's job %d", rescued, err, job)
			}
			dead.Store.Close()

			// One worker takes the jobs one at a time, in the queue's order.
			launch(t, url, 1)
			if got := runOrder(t, url, backlog+1); got[0] != job {
				t.Errorf("the jobs ran in the order %v: the rescued job %d after %d of the jobs queued after it, want first",
					got, job, slices.Index(got, job))
			}
		})
	}
}

// runOrder waits until n reconcile jobs have completed on the database at url, and says their
// ids in the order their last attempt started.
func runOrder(t *testing.T, url string, n int) []int64 {
	t.Helper()
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		rows, err := st.DB.Query(`SELECT id FROM river_job WHERE kind = 'clusterplane_reconcile' AND state = 'completed' ORDER BY attempted_at, id`)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if len(ids) >= n {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs completed within a minute", len(ids), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
