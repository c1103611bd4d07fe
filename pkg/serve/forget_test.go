package serve_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// A cluster deleted while a pool of its was still recorded (what a pool create racing the
// delete left before the store locked the cluster against it) cannot be forgotten: its status
// says why, and its job stops rather than fail again and again.
func TestAClusterWhosePoolsAreStillRecordedSaysWhyAndItsJobStops(t *testing.T) {
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			url := db.url(t)
			s := &service{t: t}
			s.url, s.backend, s.tokens = launch(t, url, 1)
			_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
			id := c["id"].(string)
			cluster := "/api/v1/clusters/" + id
			s.waitReady(cluster)
			_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+id+"/nodepools", doPool(id, 1))
			pool := "/api/v1/nodepools/" + p["id"].(string)
			s.waitReady(pool)
			// The API refuses to delete a cluster with pools; the store, asked without that
			// refusal (by a replica with no workers), makes the state the race left.
			ctx := context.Background()
			other, err := serve.Open(ctx, serve.Options{DatabaseURL: url, Kinds: registry.Kinds()})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Store.Close()
			if _, err := other.Store.Objects().Delete(ctx, store.Cluster, id, store.AnyVersion, nil); err != nil {
				t.Fatal(err)
			}
			blocked := waitJobs(t, other.River, id, func(states map[rivertype.JobState]int) bool {
				return states[rivertype.JobStateCancelled] > 0 && states[rivertype.JobStateAvailable]+states[rivertype.JobStateRetryable]+
					states[rivertype.JobStateScheduled]+states[rivertype.JobStateRunning] == 0
			})
			if !blocked {
				t.Fatal("the cluster's job that cannot forget it was not cancelled, or is still to be retried")
			}
			_, st := s.call(auth.Viewer, "GET", cluster+"/status", "")
			var ready map[string]any
			for _, cs := range list(st["controller_status"]) {
				ready = conditionOf(cs, "Ready")
			}
			if ready["status"] != "False" || ready["reason"] != reconcile.Blocked || !strings.Contains(ready["message"].(string), "node pools still refer to it") {
				t.Fatalf("the cluster's Ready is %v, want False, reason %s, saying its pools still refer to it", ready, reconcile.Blocked)
			}
		})
	}
}

// waitJobs waits up to a minute until done says yes to the states of the object's reconcile
// jobs (how many in each), and says whether it did.
func waitJobs(t *testing.T, client *river.Client[*sql.Tx], objectID string, done func(map[rivertype.JobState]int) bool) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		res, err := client.JobList(context.Background(), river.NewJobListParams().Kinds(reconcile.Args{}.Kind()).First(1000))
		if err != nil {
			t.Fatal(err)
		}
		states := map[rivertype.JobState]int{}
		for _, j := range res.Jobs {
			var args reconcile.Args
			if json.Unmarshal(j.EncodedArgs, &args) == nil && args.ObjectID == objectID {
				states[j.State]++
			}
		}
		if done(states) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
