package store

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/pkg/errors"
)

// joined answers reads asked at the same moment with one query: objects by id on PostgreSQL,
// and the count of changes (Objects.Changes) on both databases.
//
// A portal sends hundreds of reads at the same moment. On PostgreSQL each query costs a round
// trip and the server's work of one statement, on SQLite the driver's work of one; on a small
// machine that cost, not the row, is what the reads wait for: 200 reads by id at once took
// 30 ms at p99 one query each, where one query for all of them takes about as long as one for
// a single row.
//
// A read joins the next query to start, never one already running: the query it is answered
// from began after the read was asked, so it sees every write committed before that, as a
// query of its own would. At most maxRunning queries run at once; a read that arrives while they
// all run waits for the first to finish and goes in the next, with every other read that came
// meanwhile.
//
// Before each query starts, the goroutine that runs it lets every other runnable goroutine run
// once (runtime.Gosched). The requests of a burst are read and handled one after another on a
// few cores, so when the first of them asks, the rest have not yet: without the pause, 200 gets
// at once made about 45 queries of the count of changes, each a round trip and the database's
// work of a statement; with it, about 8. On an idle replica nothing else is runnable and the
// pause costs nothing.
type joined[K comparable, V any] struct {
	// read answers the keys in one query: a key with no value is left out of the map.
	read    func(ctx context.Context, keys []K) (map[K]V, error)
	mu      sync.Mutex
	next    *joinedBatch[K, V] // the reads waiting for a query; nil when none are
	running int
}

// joinedBatch is the reads one query answers: their keys, and once done is closed, the
// query's answer. Every read of the batch waits on the one channel, so a read costs a key in a
// map, not a channel of its own.
type joinedBatch[K comparable, V any] struct {
	keys  map[K]struct{}
	done  chan struct{}
	found map[K]V
	err   error
}

// maxRunning is how many of a joined read's queries run at once: two, so that a query of the
// waiting reads starts while the previous one's rows are still being sent back.
const maxRunning = 2

// joinedTimeout bounds a query that answers many requests: it is not cancelled with the
// request that started it, since other requests wait on it too.
const joinedTimeout = 30 * time.Second

// get reads the value of key, and whether there is one.
func (j *joined[K, V]) get(ctx context.Context, key K) (V, bool, error) {
	j.mu.Lock()
	if j.next == nil {
		j.next = &joinedBatch[K, V]{keys: map[K]struct{}{}, done: make(chan struct{})}
	}
	b := j.next
	b.keys[key] = struct{}{}
	if j.running < maxRunning {
		j.running++
		j.mu.Unlock()
		go j.run(context.WithoutCancel(ctx))
	} else {
		j.mu.Unlock()
	}
	var none V
	select {
	case <-b.done:
		if b.err != nil {
			return none, false, b.err
		}
		v, ok := b.found[key]
		return v, ok, nil
	case <-ctx.Done():
		return none, false, errors.Wrap(ctx.Err(), "read from the database")
	}
}

// run answers the waiting reads with one query, then the reads that came meanwhile, until none
// are left. Before each query it pauses (runtime.Gosched), so that the reads asked during the
// pause go in the same query.
func (j *joined[K, V]) run(ctx context.Context) {
	for {
		runtime.Gosched()
		j.mu.Lock()
		b := j.next
		if b == nil {
			j.running--
			j.mu.Unlock()
			return
		}
		j.next = nil
		j.mu.Unlock()
		j.answer(ctx, b)
	}
}

// answer reads every key b asks for in one query and tells b's reads.
func (j *joined[K, V]) answer(ctx context.Context, b *joinedBatch[K, V]) {
	keys := make([]K, 0, len(b.keys))
	for k := range b.keys {
		keys = append(keys, k)
	}
	ctx, cancel := context.WithTimeout(ctx, joinedTimeout)
	defer cancel()
	b.found, b.err = j.read(ctx, keys)
	close(b.done)
}
