package store

import (
	"context"
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
type joined[K comparable, V any] struct {
	// read answers the keys in one query: a key with no value is left out of the map.
	read    func(ctx context.Context, keys []K) (map[K]V, error)
	mu      sync.Mutex
	waiting map[K][]chan joinedAnswer[V]
	running int
}

// maxRunning is how many of a joined read's queries run at once: two, so that a query of the
// waiting reads starts while the previous one's rows are still being sent back.
const maxRunning = 2

// joinedTimeout bounds a query that answers many requests: it is not cancelled with the
// request that started it, since other requests wait on it too.
const joinedTimeout = 30 * time.Second

type joinedAnswer[V any] struct {
	value V
	found bool
	err   error
}

// get reads the value of key, and whether there is one.
func (j *joined[K, V]) get(ctx context.Context, key K) (V, bool, error) {
	answer := make(chan joinedAnswer[V], 1)
	j.mu.Lock()
	if j.waiting == nil {
		j.waiting = map[K][]chan joinedAnswer[V]{}
	}
	j.waiting[key] = append(j.waiting[key], answer)
	if j.running < maxRunning {
		j.running++
		batch := j.take()
		j.mu.Unlock()
		go j.run(context.WithoutCancel(ctx), batch)
	} else {
		j.mu.Unlock()
	}
	select {
	case a := <-answer:
		return a.value, a.found, a.err
	case <-ctx.Done():
		var none V
		return none, false, errors.Wrap(ctx.Err(), "read from the database")
	}
}

// take returns the waiting reads and starts a new set; j.mu is held.
func (j *joined[K, V]) take() map[K][]chan joinedAnswer[V] {
	batch := j.waiting
	j.waiting = map[K][]chan joinedAnswer[V]{}
	return batch
}

// run answers batch with one query, then the reads that came meanwhile, until none are left.
func (j *joined[K, V]) run(ctx context.Context, batch map[K][]chan joinedAnswer[V]) {
	for {
		j.answer(ctx, batch)
		j.mu.Lock()
		if len(j.waiting) == 0 {
			j.running--
			j.mu.Unlock()
			return
		}
		batch = j.take()
		j.mu.Unlock()
	}
}

// answer reads every key batch asks for in one query and gives each read its own answer.
func (j *joined[K, V]) answer(ctx context.Context, batch map[K][]chan joinedAnswer[V]) {
	keys := make([]K, 0, len(batch))
	for k := range batch {
		keys = append(keys, k)
	}
	ctx, cancel := context.WithTimeout(ctx, joinedTimeout)
	defer cancel()
	found, err := j.read(ctx, keys)
	for k, waiters := range batch {
		v, ok := found[k]
		for _, w := range waiters {
			w <- joinedAnswer[V]{value: v, found: ok && err == nil, err: err}
		}
	}
}
