package fakecloud

import (
	"errors"
	"slices"
	"testing"
)

// recorder is a Nodes that records calls and fails the names it is told to.
type recorder struct {
	calls []string
	fail  map[string]bool
}

func (r *recorder) AddNode(n Node) error {
	r.calls = append(r.calls, "add "+n.Name+" "+n.Labels["pool"])
	if r.fail[n.Name] {
		return errors.New("refused")
	}
	return nil
}

func (r *recorder) RemoveNode(name string) error {
	r.calls = append(r.calls, "remove "+name)
	if r.fail[name] {
		return errors.New("refused")
	}
	return nil
}

func node(name, pool string) Node { return Node{Name: name, Labels: map[string]string{"pool": pool}} }

func TestNodeSyncRegistersOnlyTheDifference(t *testing.T) {
	r := &recorder{fail: map[string]bool{}}
	var s NodeSync
	s.Sync("c1", []Node{node("a", "p")}) // no sink yet: nothing happens
	s.Set("c1", r)
	steps := []struct {
		name string
		want []Node
		fail []string
		exp  []string
	}{
		{"a new pool's nodes are added", []Node{node("a", "p"), node("b", "p")}, nil, []string{"add a p", "add b p"}},
		{"nothing changed, nothing called", []Node{node("a", "p"), node("b", "p")}, nil, nil},
		{"a shrunk pool's node is removed", []Node{node("a", "p")}, nil, []string{"remove b"}},
		{"a relabelled node is added again", []Node{node("a", "q")}, nil, []string{"add a q"}},
		{"a failed add is retried at the next sync", []Node{node("a", "q"), node("c", "r")}, []string{"c"}, []string{"add c r"}},
		{"and succeeds then", []Node{node("a", "q"), node("c", "r")}, nil, []string{"add c r"}},
		{"a gone cluster's nodes are all removed", nil, nil, []string{"remove a", "remove c"}},
	}
	for _, step := range steps {
		r.calls, r.fail = nil, map[string]bool{}
		for _, f := range step.fail {
			r.fail[f] = true
		}
		s.Sync("c1", step.want)
		if !slices.Equal(r.calls, step.exp) {
			t.Errorf("%s: calls %q, want %q", step.name, r.calls, step.exp)
		}
	}
	if got := s.Clusters(); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("Clusters() = %q", got)
	}
}

func TestNodeSyncAddsAgainANodeWhoseMachineChanged(t *testing.T) {
	base := Node{Name: "a", Labels: map[string]string{"pool": "p"}, ProviderID: "digitalocean://1",
		Taints: []Taint{{Key: "k", Value: "v", Effect: "NoSchedule"}}, CPU: 2, MemoryMiB: 4096}
	cases := []struct {
		name   string
		change func(n *Node)
		added  bool
	}{
		{"the same node is not added again", func(n *Node) {}, false},
		{"a node with another providerID is added again", func(n *Node) { n.ProviderID = "digitalocean://2" }, true},
		{"a node whose pool's taints changed is added again", func(n *Node) { n.Taints = nil }, true},
		{"a node of another size is added again", func(n *Node) { n.CPU, n.MemoryMiB = 4, 8192 }, true},
		{"a node that gained a GPU is added again", func(n *Node) { n.GPUs = 1 }, true},
		{"a node restarting NotReady is added again", func(n *Node) { n.NotReady = true }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{fail: map[string]bool{}}
			var s NodeSync
			s.Set("c1", r)
			first := base.clone()
			s.Sync("c1", []Node{first})
			// The fake edits its own objects afterwards: what was registered must not follow.
			first.Taints[0].Value = "edited"
			r.calls = nil
			next := base.clone()
			c.change(&next)
			s.Sync("c1", []Node{next})
			if got := len(r.calls) == 1; got != c.added {
				t.Errorf("calls %q, want added again: %v", r.calls, c.added)
			}
		})
	}
}
