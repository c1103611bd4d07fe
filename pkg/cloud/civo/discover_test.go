package civo_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
)

// The Karpenter provider's pools are its own, made and deleted as pods come and go: discover
// writes no manifest for them (adopting one would fight the provider) and says why.
func TestDiscoverLeavesTheKarpenterProvidersPoolsOut(t *testing.T) {
	account := cloud.Account{Spellable: func(string) bool { return true }, Managed: func([]string, string) bool { return false }}
	tests := []struct {
		name  string
		pools []civo.Pool
		want  []string
	}{
		{"a pool of the user's is written", []civo.Pool{
			{ID: "default", Size: "g4s.kube.medium", Count: 2},
			{ID: "workers", Size: "g4s.kube.medium", Count: 1},
		}, []string{"workers"}},
		{"a pool the provider marked is not", []civo.Pool{
			{ID: "default", Size: "g4s.kube.medium", Count: 2},
			{ID: "workers", Size: "g4s.kube.medium", Count: 1},
			{ID: "karpenter-g4s", Size: "g4s.kube.large", Count: 3, Labels: map[string]string{civo.KarpenterMarkLabel: "abc"}},
		}, []string{"workers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := civo.Discovered(civo.Cluster{ID: "c1", Name: "web", Pools: tt.pools}, "lon1", account)
			var got []string
			for _, p := range found.Pools {
				got = append(got, p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("pools written: %v, want %v", got, tt.want)
			}
			if len(tt.pools) == 3 && !strings.Contains(strings.Join(found.Notes, "\n"), "karpenter-g4s is the Karpenter provider's") {
				t.Errorf("the notes do not say why karpenter-g4s is left out:\n%s", strings.Join(found.Notes, "\n"))
			}
		})
	}
}
