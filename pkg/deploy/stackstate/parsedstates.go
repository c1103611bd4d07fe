package stackstate

import (
	"slices"
	"sync"
)

// ParsedStatesMax is how many parsed states a ParsedStates holds. A build change runs every
// stack of a fleet: ten thousand parsed states would hold gigabytes from the fleet scan to their
// ups, while a few hundred cover the stacks a nightly run finds changed.
const ParsedStatesMax = 256

// ParsedStates holds states the fleet scan parsed for the stacks it leaves to run (Records.Keep),
// each with the digest of the stored bytes it was parsed from, until the stack's opening takes
// it: the stack's first read then parses nothing while the stored bytes have that digest. It
// holds at most ParsedStatesMax, giving up the oldest first; in a process that lives on (serve)
// those never taken stay until newer ones replace them. The zero value is empty and ready.
type ParsedStates struct {
	mu    sync.Mutex
	reads map[string]parsed
	// order is the stacks held, oldest first, each once.
	order []string
}

type parsed struct {
	sum   uint64
	state State
}

// Keep holds st, parsed from stored bytes of digest sum, for the stack named key: the newest.
func (p *ParsedStates) Keep(key string, sum uint64, st State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reads == nil {
		p.reads = map[string]parsed{}
	}
	p.order = slices.DeleteFunc(p.order, func(k string) bool { return k == key })
	for len(p.order) >= ParsedStatesMax {
		delete(p.reads, p.order[0])
		p.order = p.order[1:]
	}
	p.order = append(p.order, key)
	p.reads[key] = parsed{sum: sum, state: st}
}

// Take is the state held for the stack named key and its stored bytes' digest, and forgets it: a
// parsed state is taken by one opening. ok is false when none is held.
func (p *ParsedStates) Take(key string) (sum uint64, st State, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	read, ok := p.reads[key]
	delete(p.reads, key)
	p.order = slices.DeleteFunc(p.order, func(k string) bool { return k == key })
	return read.sum, read.state, ok
}
