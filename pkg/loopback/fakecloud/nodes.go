package fakecloud

import (
	"maps"
	"slices"
)

// Node is one of a cloud's cluster nodes as Kubernetes sees it: its name, labels and taints as
// the cloud's kubelet registers them, the providerID its cloud controller manager sets, and the
// machine's capacity. Karpenter ties a NodeClaim to its Node by the providerID alone, so a fake
// that leaves it empty cannot stand in for the cloud under Karpenter.
type Node struct {
	Name       string
	Labels     map[string]string
	ProviderID string
	Taints     []Taint
	// CPU (cores), MemoryMiB and GPUs are the size's; zero means the cloud did not say.
	CPU, MemoryMiB, GPUs int
	// NotReady says the node's kubelet does not post Ready (the NodeReady condition False): the
	// cloud is restarting the machine, as it does each node in an upgrade. Zero is Ready.
	NotReady bool
}

// Taint is a node taint as Kubernetes writes it (effect NoSchedule, PreferNoSchedule or NoExecute).
type Taint struct{ Key, Value, Effect string }

// same tells whether a and b would register the same Node.
func same(a, b Node) bool {
	return a.Name == b.Name && maps.Equal(a.Labels, b.Labels) && a.ProviderID == b.ProviderID &&
		slices.Equal(a.Taints, b.Taints) && a.CPU == b.CPU && a.MemoryMiB == b.MemoryMiB && a.GPUs == b.GPUs && a.NotReady == b.NotReady
}

// clone is n with its own label map and taint list, so the fake's later edits do not reach it.
func (n Node) clone() Node {
	n.Labels, n.Taints = maps.Clone(n.Labels), slices.Clone(n.Taints)
	return n
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
// new ones added, vanished ones removed, one that changed (labels, taints, providerID, size)
// added again.
func (s *NodeSync) Sync(clusterID string, want []Node) {
	sink, ok := s.sinks[clusterID]
	if !ok {
		return
	}
	known := s.known[clusterID]
	wanted := map[string]bool{}
	for _, n := range want {
		wanted[n.Name] = true
		if old, ok := known[n.Name]; ok && same(old, n) {
			continue
		}
		if err := sink.AddNode(n); err == nil {
			known[n.Name] = n.clone()
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
