package queue

import (
	"context"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Heard is the latest each account's answers to this process's requests said of its requests an
// hour (cloudapi.Allowance), heard from the time Listen is called until Stop: a run's own first
// requests (the check of what a cloud offers, the fleet scan's lists) tell the pacer what each
// account has left at no cost of their own. Accounts are told apart by cloudapi.AccountOf.
type Heard struct {
	mu     sync.Mutex
	latest map[heardKey]cloudapi.Allowance
	stop   func()
}

// heardKey is one cloud's account.
type heardKey struct{ cloud, account string }

// Listen starts hearing.
func Listen() *Heard {
	h := &Heard{latest: map[heardKey]cloudapi.Allowance{}}
	h.stop = cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		if r.Allowance != nil && r.Cloud != "" {
			h.Hear(r.Cloud, r.Account, *r.Allowance)
		}
	})
	return h
}

// Stop stops hearing; what was heard stays. A second Stop, or one of a nil Heard, does nothing.
func (h *Heard) Stop() {
	if h != nil {
		h.stop()
	}
}

// Latest is the last word heard of account's requests on cloud (account as cloudapi.AccountOf
// names it); ok is false when none was, or h is nil.
func (h *Heard) Latest(cloud, account string) (a cloudapi.Allowance, ok bool) {
	if h == nil {
		return a, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok = h.latest[heardKey{cloud, account}]
	return a, ok
}

// Hear keeps a as the word on account's requests on cloud, unless a later one was heard.
func (h *Heard) Hear(cloud, account string, a cloudapi.Allowance) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := heardKey{cloud, account}
	if last, ok := h.latest[k]; !ok || !a.At.Before(last.At) {
		h.latest[k] = a
	}
}
