package store

import (
	"context"
	"sync"
	"time"

	"github.com/pkg/errors"
)

// gets reads objects by id on PostgreSQL, many in one query when many are asked for at once.
//
// A portal sends hundreds of reads of single objects at the same moment. On PostgreSQL each
// query costs a round trip and the server's work of one statement, and on a small machine that
// cost, not the row, is what the reads wait for: 200 reads at once took 30 ms at p99 one query
// each, where one query for all of them takes about as long as one for a single row.
//
// A read joins the next query to start, never one already running: the query it is answered
// from began after the read was asked, so it sees every write committed before that, as a
// query of its own would. At most maxRunning queries run at once; a read that arrives while they
// all run waits for the first to finish and goes in the next, with every other read that came
// meanwhile.
type gets struct {
	store *Store
	mu    sync.Mutex
	// waiting are the reads for the next query, by object id.
	waiting map[string][]getWaiter
	running int
}

// maxRunning is how many reads' queries run at once: two, so that a query of the waiting reads
// starts while the previous one's rows are still being sent back.
const maxRunning = 2

// getTimeout bounds a query that answers many requests: it is not cancelled with the request
// that started it, since other requests wait on it too.
const getTimeout = 30 * time.Second

type getWaiter struct {
	kind   string
	answer chan getAnswer
}

type getAnswer struct {
	object Object
	err    error
}

// get reads the object of kind with id, which is a valid UUID.
func (g *gets) get(ctx context.Context, kind, id string) (Object, error) {
	answer := make(chan getAnswer, 1)
	g.mu.Lock()
	if g.waiting == nil {
		g.waiting = map[string][]getWaiter{}
	}
	g.waiting[id] = append(g.waiting[id], getWaiter{kind: kind, answer: answer})
	if g.running < maxRunning {
		g.running++
		batch := g.take()
		g.mu.Unlock()
		go g.run(context.WithoutCancel(ctx), batch)
	} else {
		g.mu.Unlock()
	}
	select {
	case a := <-answer:
		return a.object, a.err
	case <-ctx.Done():
		return Object{}, errors.Wrap(ctx.Err(), "read the object")
	}
}

// take returns the waiting reads and starts a new set; g.mu is held.
func (g *gets) take() map[string][]getWaiter {
	batch := g.waiting
	g.waiting = map[string][]getWaiter{}
	return batch
}

// run answers batch with one query, then the reads that came meanwhile, until none are left.
func (g *gets) run(ctx context.Context, batch map[string][]getWaiter) {
	for {
		g.answer(ctx, batch)
		g.mu.Lock()
		if len(g.waiting) == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		batch = g.take()
		g.mu.Unlock()
	}
}

// answer reads every object batch asks for in one query and gives each read its own answer:
// the object, or ErrNotFound when no object of the kind it asked for has that id.
func (g *gets) answer(ctx context.Context, batch map[string][]getWaiter) {
	ids := make([]string, 0, len(batch))
	for id := range batch {
		ids = append(ids, id)
	}
	found, err := g.read(ctx, ids)
	for id, waiters := range batch {
		for _, w := range waiters {
			a := getAnswer{err: err}
			if err == nil {
				o, ok := found[id]
				if ok && o.Kind == w.kind {
					a.object = o
				} else {
					a.err = ErrNotFound
				}
			}
			w.answer <- a
		}
	}
}

func (g *gets) read(ctx context.Context, ids []string) (map[string]Object, error) {
	ctx, cancel := context.WithTimeout(ctx, getTimeout)
	defer cancel()
	rows, err := g.store.DB.QueryContext(ctx, `SELECT `+columns+` FROM clusterplane_objects WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return nil, errors.Wrap(err, "read objects by id")
	}
	defer rows.Close()
	found := make(map[string]Object, len(ids))
	for rows.Next() {
		o, err := scan(rows)
		if err != nil {
			return nil, errors.Wrap(err, "read objects by id")
		}
		found[o.ID] = o
	}
	return found, errors.Wrap(rows.Err(), "read objects by id")
}
