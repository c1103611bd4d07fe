package stackstate

import "sync"

// KeptMax is how many parsed states a Kept holds. A build change runs every stack of a fleet:
// ten thousand parsed states would hold gigabytes from the fleet scan to their ups, while a few
// hundred cover the stacks a nightly run finds changed.
const KeptMax = 256

// Kept holds states the fleet scan parsed for the stacks it leaves to run (Records.Keep), each
// with the digest of the stored bytes it was parsed from, until the stack's opening takes it: the
// stack's first read then parses nothing while the stored bytes have that digest. It holds at
// most KeptMax, giving up the oldest first. The zero Kept is empty and ready.
type Kept struct {
	mu    sync.Mutex
	reads map[string]kept
	order []string
}

type kept struct {
	sum   uint64
	state State
}

// Keep keeps st, parsed from stored bytes of digest sum, for the stack named key.
func (k *Kept) Keep(key string, sum uint64, st State) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.reads == nil {
		k.reads = map[string]kept{}
	}
	if _, ok := k.reads[key]; !ok {
		for len(k.order) >= KeptMax {
			// The order may name a stack already taken: then dropping its name frees nothing more.
			delete(k.reads, k.order[0])
			k.order = k.order[1:]
		}
		k.order = append(k.order, key)
	}
	k.reads[key] = kept{sum: sum, state: st}
}

// Take is the state kept for the stack named key and its stored bytes' digest, and forgets it: a
// kept state is taken by one opening. ok is false when none is kept.
func (k *Kept) Take(key string) (sum uint64, st State, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	read, ok := k.reads[key]
	delete(k.reads, key)
	return read.sum, read.state, ok
}
