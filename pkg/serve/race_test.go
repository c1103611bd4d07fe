package serve_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// replicaCall is one request to a replica, for goroutines other than the test's: it returns
// its error rather than failing the test.
func replicaCall(url, token, method, path, body string, headers ...string) (int, string, error) {
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), err
}

func doClusterNamed(name string) string {
	return strings.Replace(doCluster, `"api-fra1"`, fmt.Sprintf("%q", name), 1)
}

// A pool added to a cluster being deleted would be left with nothing to run on, and the
// cluster's record could never go (the pool refers to it): of the two writes sent at once,
// exactly one may succeed, whichever replica takes each.
func TestOfAPoolCreateAndItsClustersDeleteSentTogetherExactlyOneSucceeds(t *testing.T) {
	const tries = 50
	tests := []struct {
		name        string
		url         func(tb testing.TB) string
		twoReplicas bool
	}{
		{"on SQLite", databases[0].url, false},
		{"on PostgreSQL", databases[1].url, false},
		{"on PostgreSQL, the two writes sent to two replicas", databases[1].url, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := tt.url(t)
			workers := &service{t: t}
			workers.url, workers.backend, workers.tokens = launch(t, db, 4)
			other := workers
			if tt.twoReplicas {
				other = &service{t: t}
				other.url, other.backend, other.tokens = launch(t, db, 0)
			}
			ids := make([]string, tries)
			for i := range ids {
				code, c := workers.call(auth.Editor, "POST", "/api/v1/clusters", doClusterNamed(fmt.Sprintf("race-%02d", i)))
				if code != http.StatusCreated {
					t.Fatalf("create cluster %d: %d %v", i, code, c)
				}
				ids[i] = c["id"].(string)
			}
			pools := 0
			for i, id := range ids {
				var poolCode, deleteCode int
				var poolBody, deleteBody string
				var poolErr, deleteErr error
				start := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(2)
				go func() {
					defer wg.Done()
					<-start
					poolCode, poolBody, poolErr = replicaCall(workers.url, workers.tokens[auth.Editor], "POST",
						"/api/v1/clusters/"+id+"/nodepools", doPool(id, 1))
				}()
				go func() {
					defer wg.Done()
					<-start
					deleteCode, deleteBody, deleteErr = replicaCall(other.url, other.tokens[auth.Editor], "DELETE",
						"/api/v1/clusters/"+id, "", "If-Match", "*")
				}()
				close(start)
				wg.Wait()
				if poolErr != nil || deleteErr != nil {
					t.Fatalf("try %d: %v, %v", i, poolErr, deleteErr)
				}
				switch {
				case poolCode == http.StatusCreated && deleteCode == http.StatusConflict:
					pools++
				case (poolCode == http.StatusConflict || poolCode == http.StatusNotFound) && deleteCode == http.StatusAccepted:
					// The pool's create is answered 404 when a worker forgot the cluster (it had no
					// stack yet) before the create read it.
				default:
					t.Fatalf("try %d: the pool's create answered %d %s and the cluster's delete %d %s; want exactly one "+
						"accepted and the other refused (409, or 404 once the cluster is forgotten)", i, poolCode, poolBody, deleteCode, deleteBody)
				}
			}
			t.Logf("of %d tries, the pool was made in %d and the cluster deleted in %d", tries, pools, tries-pools)
			workers.waitSettled(pools, pools)
		})
	}
}

// waitSettled waits until the workers have done their work: clusters clusters and pools pools
// left, every one Ready, none Finalizing or Failed.
func (s *service) waitSettled(clusters, pools int) {
	s.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		_, cs := s.call(auth.Viewer, "GET", "/api/v1/clusters?limit=100", "")
		_, ps := s.call(auth.Viewer, "GET", "/api/v1/nodepools?limit=100", "")
		settled := cs["total"] == float64(clusters) && ps["total"] == float64(pools)
		var phases []string
		for _, o := range append(list(cs["clusters"]), list(ps["nodepools"])...) {
			phases = append(phases, fmt.Sprintf("%s %s", o["name"], o["phase"]))
			if o["phase"] != "Ready" {
				settled = false
			}
		}
		if settled {
			return
		}
		last = fmt.Sprintf("%v clusters and %v pools: %s", cs["total"], ps["total"], strings.Join(phases, ", "))
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("want %d clusters and %d pools, all Ready; after 3 minutes there are %s", clusters, pools, last)
}
