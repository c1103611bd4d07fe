package queue

import (
	"context"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Heard is the latest each cloud's answers to this process's requests said of its account's
// requests an hour (cloudapi.Allowance), heard from the time Listen is called until Stop: a run's
// fleet scan and look-ups tell the pacer what the account has left at no cost of their own.
type Heard struct {
	mu     sync.Mutex
	latest map[string]cloudapi.Allowance
	stop   func()
}

// Listen starts hearing.
func Listen() *Heard {
	h := &Heard{latest: map[string]cloudapi.Allowance{}}
	h.stop = cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		if r.Allowance == nil || r.Cloud == "" {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if last, ok := h.latest[r.Cloud]; !ok || !r.Allowance.At.Before(last.At) {
			h.latest[r.Cloud] = *r.Allowance
		}
	})
	return h
}

// Stop stops hearing; what was heard stays.
func (h *Heard) Stop() { h.stop() }

// Latest is the last word heard of cloud's account; ok is false when none was, or h is nil.
func (h *Heard) Latest(cloud string) (a cloudapi.Allowance, ok bool) {
	if h == nil {
		return a, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok = h.latest[cloud]
	return a, ok
}

// Hear keeps a, read on purpose (the driver's Allowance), as if an answer had said it.
func (h *Heard) Hear(cloud string, a cloudapi.Allowance) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if last, ok := h.latest[cloud]; !ok || !a.At.Before(last.At) {
		h.latest[cloud] = a
	}
}
