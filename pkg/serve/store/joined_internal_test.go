package store

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// The reads of a burst, asked one after another as their requests are handled, share a few
// queries, not one each: the goroutine that runs a query lets the others ask before it starts.
// One core makes the order of the goroutines the same in every run.
func TestAReadsBurstSharesAFewQueriesNotOneEach(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const reads = 200
	var queries atomic.Int64
	j := joined[int, int]{read: func(_ context.Context, keys []int) (map[int]int, error) {
		queries.Add(1)
		out := map[int]int{}
		for _, k := range keys {
			out[k] = k * 2
		}
		return out, nil
	}}
	var wg sync.WaitGroup
	wrong := make([]bool, reads)
	for i := range reads {
		wg.Go(func() {
			v, ok, err := j.get(context.Background(), i)
			wrong[i] = err != nil || !ok || v != i*2
		})
	}
	wg.Wait()
	for i, w := range wrong {
		if w {
			t.Fatalf("read %d did not get its own answer", i)
		}
	}
	if n := queries.Load(); n > reads/10 {
		t.Errorf("%d reads asked at once made %d queries, want at most %d", reads, n, reads/10)
	}
}
