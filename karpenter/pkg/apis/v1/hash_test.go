package v1_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestTheHashChangesWithWhatAPoolIsMadeWithAndNothingElse(t *testing.T) {
	base := v1.NodeClassSpec{Cluster: v1.ClusterRef{ID: "c"}, Labels: map[string]string{"a": "1", "b": "2"}, Tags: []string{"x", "y"}}
	for _, tc := range []struct {
		name   string
		change func(*v1.NodeClassSpec)
		same   bool
	}{
		{"the same spec hashes the same", func(*v1.NodeClassSpec) {}, true},
		{"tags in another order hash the same", func(s *v1.NodeClassSpec) { s.Tags = []string{"y", "x"} }, true},
		{"size terms are not hashed", func(s *v1.NodeClassSpec) {
			s.SizeSelectorTerms = []v1.SizeSelectorTerm{{Names: []string{"s-1vcpu-2gb"}}}
		}, true},
		{"a changed label changes it", func(s *v1.NodeClassSpec) { s.Labels = map[string]string{"a": "1", "b": "3"} }, false},
		{"a taint changes it", func(s *v1.NodeClassSpec) {
			s.Taints = []v1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		}, false},
		{"another cluster changes it", func(s *v1.NodeClassSpec) { s.Cluster = v1.ClusterRef{Name: "c"} }, false},
		{"a tag more changes it", func(s *v1.NodeClassSpec) { s.Tags = []string{"x", "y", "z"} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := *base.DeepCopy()
			tc.change(&other)
			if got := other.Hash() == base.Hash(); got != tc.same {
				t.Errorf("same hash %v, want %v", got, tc.same)
			}
		})
	}
}

// Taints moved from corev1.Taint to the provider's own Taint (to carry the API server's checks);
// the hash must not move with them, or every tainted class's nodes would read as drifted and be
// replaced after an upgrade. This is the hash as it was computed over corev1.Taint.
func TestATaintedSpecHashesAsItDidWithKubernetesTaints(t *testing.T) {
	spec := v1.NodeClassSpec{Cluster: v1.ClusterRef{ID: "c"}, Labels: map[string]string{"a": "1"},
		Taints: []v1.Taint{{Key: "workload", Value: "batch", Effect: corev1.TaintEffectNoSchedule}, {Key: "gpu", Effect: corev1.TaintEffectNoExecute}}}
	b, _ := json.Marshal(struct {
		Cluster v1.ClusterRef
		Labels  map[string]string
		Taints  any
		Tags    []string
	}{spec.Cluster, spec.Labels, []corev1.Taint{
		{Key: "workload", Value: "batch", Effect: corev1.TaintEffectNoSchedule}, {Key: "gpu", Effect: corev1.TaintEffectNoExecute}}, nil})
	sum := sha256.Sum256(b)
	if want := hex.EncodeToString(sum[:16]); spec.Hash() != want {
		t.Errorf("got hash %s, want %s as with corev1.Taint", spec.Hash(), want)
	}
}
