//go:build unix

package autostack

import (
	"context"
	"errors"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"strings"
	"sync"
	"testing"
	"time"
)

// surgeCloud is a cloud of pools by name whose find and create are apart in time, as a real
// cloud's list and create are: two rotations not held apart both find nothing and both create.
type surgeCloud struct {
	mu      sync.Mutex
	created int
	pools   map[string]bool
	record  string
}

func (c *surgeCloud) findOrCreate(name, mark string) {
	c.mu.Lock()
	found := c.pools[name]
	c.mu.Unlock()
	time.Sleep(200 * time.Microsecond)
	if !found {
		c.mu.Lock()
		c.pools[name] = true
		c.created++
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.record = mark
	c.mu.Unlock()
}

func TestTwoRotationsStartedTogetherOnAFileBackendMakeOneSurgePoolAHundredTimesOver(t *testing.T) {
	b := &Backend{url: "file://" + t.TempDir()}
	for round := 0; round < 100; round++ {
		cloud := &surgeCloud{pools: map[string]bool{}}
		var wg sync.WaitGroup
		var busy, ran int
		var mu sync.Mutex
		for runner := 0; runner < 2; runner++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				unlock, err := b.LockStack(context.Background(), "do-nodepool", "workers-prod")
				var turned *stackstate.StackBusyError
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.As(err, &turned):
					busy++
					return
				case err != nil:
					t.Errorf("round %d: lock: %v", round, err)
					return
				}
				ran++
				mu.Unlock()
				cloud.findOrCreate("workers-surge", "mark")
				unlock()
				mu.Lock()
			}()
		}
		wg.Wait()
		if cloud.created != 1 {
			t.Fatalf("round %d: %d surge pools created (%d ran, %d turned away), want 1", round, cloud.created, ran, busy)
		}
	}
}

// Promise: stack-lock-turns-away
func TestAStackLockIsTurnedAwayWithItsHolderAndFreedByItsRelease(t *testing.T) {
	ctx := context.Background()
	b := &Backend{url: "file://" + t.TempDir()}
	unlock, err := b.LockStack(ctx, "do-cluster", "web-prod")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.LockStack(ctx, "do-cluster", "web-prod")
	var busy *stackstate.StackBusyError
	if !errors.As(err, &busy) || !strings.Contains(busy.Holder, "pid ") {
		t.Fatalf("a second lock: %v, want busy naming the holder", err)
	}
	other, err := b.LockStack(ctx, "do-cluster", "web-dev")
	if err != nil {
		t.Fatalf("another stack's lock: %v, want taken", err)
	}
	other()
	unlock()
	again, err := b.LockStack(ctx, "do-cluster", "web-prod")
	if err != nil {
		t.Fatalf("the lock after its release: %v, want taken", err)
	}
	again()
}

func TestABackendOfAnObjectStoreSaysItCannotHoldAStackLock(t *testing.T) {
	for _, url := range []string{"s3://bucket", "gs://bucket", "azblob://container", "https://api.pulumi.com"} {
		b := &Backend{url: url}
		if _, err := b.LockStack(context.Background(), "p", "s"); !errors.Is(err, stackstate.ErrNoStackLock) {
			t.Errorf("%s: %v, want ErrNoStackLock", url, err)
		}
	}
}
