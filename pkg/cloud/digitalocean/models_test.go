package digitalocean_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// A cluster's default pool is gone only when its answer shows every pool with its tags and none
// tagged as the default: an answer that left the pools, or a pool's tags, out tells nothing.
func TestADefaultPoolIsGoneOnlyWhenEveryPoolShowsItsTags(t *testing.T) {
	pool := func(tags ...string) digitalocean.NodePool { return digitalocean.NodePool{Name: "p", Tags: tags} }
	for _, tt := range []struct {
		name     string
		pools    []digitalocean.NodePool
		leftOut  bool
		poolGone bool
	}{
		{"a pool tagged as the default keeps it", []digitalocean.NodePool{pool("k8s", dofacts.DefaultPoolTag)}, false, false},
		{"pools with tags, none the default, have lost it", []digitalocean.NodePool{pool("k8s"), pool("k8s", "team")}, false, true},
		{"a pool listed without tags may be the default one", []digitalocean.NodePool{pool("k8s"), pool()}, false, false},
		{"a cluster listed without pools had them left out", nil, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := digitalocean.Cluster{Name: "c", NodePools: tt.pools}
			if got := c.PoolsLeftOut(); got != tt.leftOut {
				t.Errorf("PoolsLeftOut = %t, want %t", got, tt.leftOut)
			}
			if got := c.DefaultPoolGone(); got != tt.poolGone {
				t.Errorf("DefaultPoolGone = %t, want %t", got, tt.poolGone)
			}
		})
	}
}
