package entry

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// The default pool's rotation is readied from the cluster's own id: the old pool is the one the
// provider reads as the default pool (tagged), the new one is created as the module's node_pool
// with the manifest's settings, and it ends under the manifest's pool name.
func TestTheDefaultPoolsRotationFindsTheTaggedPoolAndCreatesTheNewOneAsTheModuleWould(t *testing.T) {
	do := fakedo.New(t, "do-token")
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{dofacts.DefaultPoolTag}},
		{Name: "batch", Size: "s-2vcpu-4gb", Count: 1},
	}})
	do.Setenv(t, digitalocean.Env.TokenEnv, digitalocean.Env.URLEnv)
	input := &v1.DigitalOceanKubernetesClusterStackInput{Target: &v1.DigitalOceanKubernetesCluster{
		Metadata: &sharedv1.CloudResourceMetadata{Name: "web"},
		Spec: &v1.DigitalOceanKubernetesClusterSpec{ClusterName: "web",
			DefaultNodePool: &v1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-4vcpu-8gb", NodeCount: 3, Tags: []string{"team:web"},
				Rollout: &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, ReadyTimeoutMinutes: 45}}},
	}}
	ctx := context.Background()
	if _, err := rotate(ctx, input, "", nil); err == nil {
		t.Error("a rotation readied without the cluster's id")
	}
	r, err := rotate(ctx, input, cid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes != 3 || r.ReadyTimeout != 45*time.Minute || r.Drain.Timeout != 30*time.Minute || r.Final != "default" || r.OldPool == nil {
		t.Errorf("rotation readied with %d nodes, ready %s, drain %s, final %q", r.Nodes, r.ReadyTimeout, r.Drain.Timeout, r.Final)
	}
	old, _ := do.PoolNamed(cid, "default")
	if id, err := r.OldPool(ctx); err != nil || id != old.ID {
		t.Errorf("the old pool = %q, %v; want the tagged %s", id, err, old.ID)
	}
	id, err := r.Cloud.Create(ctx, "default-surge", rotation.NewMark("do-cluster/web", rotation.NewID()).String())
	if err != nil {
		t.Fatal(err)
	}
	surge, _ := do.Pool(cid, id)
	if surge.Size != "s-4vcpu-8gb" || surge.Count != 3 || !slices.Contains(surge.Tags, "team:web") ||
		!slices.ContainsFunc(surge.Tags, func(t string) bool { return t == "resource-name:web" }) {
		t.Errorf("surge pool %s × %d tagged %v, want 3 × s-4vcpu-8gb with the module's tags", surge.Size, surge.Count, surge.Tags)
	}

	// Without readyTimeoutMinutes the wait is the 20 minutes it always was.
	input.Target.Spec.DefaultNodePool.Rollout.ReadyTimeoutMinutes = 0
	if r, err = rotate(ctx, input, cid, nil); err != nil || r.ReadyTimeout != kinds.DefaultReadyTimeout || kinds.DefaultReadyTimeout != 20*time.Minute {
		t.Errorf("default ready timeout %v, %v", r.ReadyTimeout, err)
	}
}
