package cloudapi

import (
	"context"
	"sync"
	"time"
)

// Request is one request a Client sent, as an observer sees it: never its token, its base URL
// or its query, which may carry credentials or names.
type Request struct {
	// Cloud is the client's Options.Cloud ("" when the maker named none); Account names its
	// token's account (AccountOf), never the token.
	Cloud, Account string
	// Method and Path are the request's; Path without its query, ids and all.
	Method, Path string
	// Status is the answer's HTTP status; 0 when no answer came.
	Status int
	// Start is when it was sent; Duration how long the answer took.
	Start    time.Time
	Duration time.Duration
	// Allowance is what the answer said of the account's requests an hour; nil when it said
	// nothing (Civo's answers, no answer).
	Allowance *Allowance
}

var (
	observersMu sync.RWMutex
	observers   = map[*func(context.Context, Request)]struct{}{}
)

// Observe calls f after every request any Client of this process sends (each attempt of a
// retried request counts), from the sending goroutine, with the request's context (which
// carries the caller's span, when traces are on): f must be quick and safe for concurrent use. A
// process's metrics count its cloud requests here: every cloud client of clusterplane, Civo's
// pools (pkg/cloud/civo/pools) included, sends through a Client. The returned function stops the
// calls.
func Observe(f func(context.Context, Request)) (stop func()) {
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

func notify(ctx context.Context, r Request) {
	observersMu.RLock()
	defer observersMu.RUnlock()
	for f := range observers {
		(*f)(ctx, r)
	}
}
