package fakecloud

import (
	"slices"
	"strings"
	"sync"
)

// Recorded is a Nodes that keeps the whole Node it was told, by name, as a control plane would
// hold it: the loopback clouds' tests read what their fake registered here instead of starting a
// control plane. Its zero value is ready.
type Recorded struct {
	mu    sync.Mutex
	nodes map[string]Node
}

func (r *Recorded) AddNode(n Node) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nodes == nil {
		r.nodes = map[string]Node{}
	}
	r.nodes[n.Name] = n
	return nil
}

func (r *Recorded) RemoveNode(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.nodes, name)
	return nil
}

// Nodes are the registered nodes, by name.
func (r *Recorded) Nodes() []Node {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Node, 0, len(r.nodes))
	for _, n := range r.nodes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ProviderIDs are the registered nodes' providerIDs, sorted.
func (r *Recorded) ProviderIDs() []string {
	var out []string
	for _, n := range r.Nodes() {
		out = append(out, n.ProviderID)
	}
	slices.Sort(out)
	return out
}
