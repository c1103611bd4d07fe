package cloudapi

import (
	"sync"
	"time"
)

// Request is one request a Client sent, as an observer sees it: never its token, its base URL
// or its query, which may carry credentials or names.
type Request struct {
	// Cloud is the client's Options.Cloud ("" when the maker named none).
	Cloud string
	// Method and Path are the request's; Path without its query, ids and all.
	Method, Path string
	// Status is the answer's HTTP status; 0 when no answer came.
	Status   int
	Duration time.Duration
}

var (
	observersMu sync.RWMutex
	observers   = map[*func(Request)]struct{}{}
)

// Observe calls f after every request any Client of this process sends (each attempt of a
// retried request counts), from the sending goroutine: f must be quick and safe for concurrent
// use. A process's metrics count its cloud requests here, the one transport every cloud call
// of clusterplane's own goes through. The returned function stops the calls.
func Observe(f func(Request)) (stop func()) {
	key := &f
	observersMu.Lock()
	observers[key] = struct{}{}
	observersMu.Unlock()
	return func() {
		observersMu.Lock()
		delete(observers, key)
		observersMu.Unlock()
	}
}

// Notify tells the observers of a request sent by a client of a cloud's own (Civo's pools
// client), so that they count every cloud request of the process.
func Notify(r Request) { notify(r) }

func notify(r Request) {
	observersMu.RLock()
	defer observersMu.RUnlock()
	for f := range observers {
		(*f)(r)
	}
}
