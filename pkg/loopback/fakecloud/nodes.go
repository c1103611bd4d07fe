package fakecloud

import (
	"maps"
	"slices"
)

// Node is one of a cloud's cluster nodes as Kubernetes sees it: its name and labels.
type Node struct {
	Name   string
	Labels map[string]string
}

// Nodes is where a fake cloud registers a cluster's nodes: in e2e tests, a real Kubernetes
// control plane whose simulated kubelets make them Ready. The fakes call it under their lock,
// so it must not call back into the fake. An error leaves the node to the next sync.
type Nodes interface {
	AddNode(n Node) error
	RemoveNode(name string) error
}

// NodeSync keeps each cluster's registered nodes equal to the nodes the cloud reports: a fake
// tells it, after every request, which nodes each cluster has now, and it adds and removes the
// difference. Its zero value is ready; the fake's lock guards it.
type NodeSync struct {
	sinks map[string]Nodes
	// known are, by cluster id, the nodes registered, by name.
	known map[string]map[string]Node
}

// Set registers cluster id's nodes in n from now on; nil stops it (the nodes registered stay).
func (s *NodeSync) Set(clusterID string, n Nodes) {
	if s.sinks == nil {
		s.sinks, s.known = map[string]Nodes{}, map[string]map[string]Node{}
	}
	if n == nil {
		delete(s.sinks, clusterID)
		delete(s.known, clusterID)
		return
	}
	s.sinks[clusterID] = n
	s.known[clusterID] = map[string]Node{}
}

// Clusters are the ids of the clusters whose nodes are registered somewhere.
func (s *NodeSync) Clusters() []string { return slices.Sorted(maps.Keys(s.sinks)) }

// Sync makes the registered nodes of the cluster what want says (nil when the cluster is gone):
// new ones added, vanished ones removed, one whose labels changed added again.
func (s *NodeSync) Sync(clusterID string, want []Node) {
	sink, ok := s.sinks[clusterID]
	if !ok {
		return
	}
	known := s.known[clusterID]
	wanted := map[string]bool{}
	for _, n := range want {
		wanted[n.Name] = true
		if old, ok := known[n.Name]; ok && maps.Equal(old.Labels, n.Labels) {
			continue
		}
		if err := sink.AddNode(n); err == nil {
			known[n.Name] = Node{Name: n.Name, Labels: maps.Clone(n.Labels)}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(known)) {
		if !wanted[name] {
			if err := sink.RemoveNode(name); err == nil {
				delete(known, name)
			}
		}
	}
}
