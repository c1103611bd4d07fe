package digitalocean_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// The Karpenter provider's pools are its own, made and deleted as pods come and go: discover
// writes no manifest for them (adopting one would fight the provider) and says why.
func TestDiscoverLeavesTheKarpenterProvidersPoolsOut(t *testing.T) {
	account := cloud.Account{Spellable: func(string) bool { return true }, Managed: func([]string, string) bool { return false }}
	tests := []struct {
		name  string
		pools []digitalocean.NodePool
		want  []string
	}{
		{"a pool of the user's is written", []digitalocean.NodePool{
			{ID: "p1", Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"terraform:default-node-pool"}},
			{ID: "p2", Name: "workers", Size: "s-2vcpu-4gb", Count: 1},
		}, []string{"workers"}},
		{"a pool the provider marked is not", []digitalocean.NodePool{
			{ID: "p1", Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"terraform:default-node-pool"}},
			{ID: "p2", Name: "workers", Size: "s-2vcpu-4gb", Count: 1},
			{ID: "p3", Name: "karpenter-c-4", Size: "c-4", Count: 3, Tags: []string{digitalocean.KarpenterMarkTag + "abc"}},
		}, []string{"workers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := digitalocean.Cluster{ID: "c1", Name: "web", Region: "nyc1", Version: "1.31.1-do.5", NodePools: tt.pools}
			found, err := digitalocean.Discovered(cl, account)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range found.Pools {
				got = append(got, p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("pools written: %v, want %v", got, tt.want)
			}
			if len(tt.pools) == 3 && !strings.Contains(strings.Join(found.Notes, "\n"), "karpenter-c-4 (p3) is the Karpenter provider's") {
				t.Errorf("the notes do not say why karpenter-c-4 is left out:\n%s", strings.Join(found.Notes, "\n"))
			}
		})
	}
}
