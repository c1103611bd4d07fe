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
			dead := killMidJob(t, url, -time.Second)
			job := dead.job
			for i := range backlog {
				if code, out := dead.editor.call(auth.Editor, "POST", "/api/v1/clusters", strings.Replace(doCluster, "api-fra1", fmt.Sprintf("backlog-%d", i), 1)); code != 201 {
					t.Fatalf("queue the backlog: %d %v", code, out)
				}
			}
			dead.api.Close()

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

// killedReplica is a replica that took the first cluster's job and was then killed (kill -9, a
// lost machine): the job is left running at attempt 1 with its lease. Its API still answers
// editor (to queue more jobs) until the test closes api; it runs no worker and no rescuer.
type killedReplica struct {
	*serve.Service
	api    *httptest.Server
	editor *service
	// job is the cluster's job, object the cluster's id.
	job    int64
	object string
}

// killMidJob opens the replica on the database at url, creates the cluster through it, and
// leaves its job running with a lease that holds for lease more (negative: ran out).
func killMidJob(t *testing.T, url string, lease time.Duration) *killedReplica {
	t.Helper()
	ctx := context.Background()
	dead, err := serve.Open(ctx, serve.Options{DatabaseURL: url, Kinds: registry.Kinds(), StackTimeout: time.Minute, RescueAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	token, err := serve.CreateToken(ctx, dead.Store.Tokens(), "killed", auth.Editor, "")
	if err != nil {
		t.Fatal(err)
	}
	k := &killedReplica{Service: dead, api: httptest.NewServer(dead.Server.Handler())}
	k.editor = &service{t: t, url: k.api.URL, tokens: map[auth.Role]string{auth.Editor: token}}
	_, c := k.editor.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
	k.object, _ = c["id"].(string)
	if err := dead.Store.DB.QueryRow(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = scheduled_at
		WHERE kind = 'clusterplane_reconcile' RETURNING id`).Scan(&k.job); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Store.Jobs().Renew(ctx, store.Lease{JobID: k.job, Attempt: 1, ObjectID: k.object, Replica: "killed",
		Expires: time.Now().Add(lease)}); err != nil {
		t.Fatal(err)
	}
	return k
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
