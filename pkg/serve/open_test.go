package serve_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve"
)

// Replicas are often started together (a deployment of several, a rollout): on an empty database
// each finds the tables missing and creates them, and none may fail for having met another at it.
func TestReplicasStartedTogetherOnAnEmptyDatabaseAllComeUp(t *testing.T) {
	const replicas = 4
	// One round meets the race most times, not every time: several rounds, each on a fresh
	// database, make the test fail without the lock whatever the scheduling.
	const rounds = 5
	server := pgtest.Start(t)
	for round := range rounds {
		url := server.Database(fmt.Sprintf("fresh%d", round))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := make(chan struct{})
		errs := make([]error, replicas)
		var wg sync.WaitGroup
		for i := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				svc, err := serve.Open(ctx, serve.Options{DatabaseURL: url, Workers: 1, Kinds: registry.Kinds()})
				if err != nil {
					errs[i] = err
					return
				}
				svc.Store.Close()
			}()
		}
		close(start)
		wg.Wait()
		cancel()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: replica %d of %d started together did not come up: %v", round+1, i+1, replicas, err)
			}
		}
	}
}
