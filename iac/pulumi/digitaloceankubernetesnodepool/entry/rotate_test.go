package entry

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// Promise: up-rotates-before-the-engine
func TestTheRotationsCloudCreatesTheSurgePoolWaitsForItDeletesTheOldAndRenames(t *testing.T) {
	digitalocean.Poll = 10 * time.Millisecond
	do := fakedo.New(t, "do-token")
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "workers", Size: "s-4vcpu-8gb", Count: 2},
	}})
	do.SetKubeconfig(cid, []byte("apiVersion: v1\nkind: Config\n"))
	do.Setenv(t, digitalocean.Env.TokenEnv, digitalocean.Env.URLEnv)
	input := &v1.DigitalOceanKubernetesNodePoolStackInput{Target: &v1.DigitalOceanKubernetesNodePool{
		Metadata: &sharedv1.CloudResourceMetadata{Name: "web-workers"},
		Spec: &v1.DigitalOceanKubernetesNodePoolSpec{NodePoolName: "workers", Size: "s-8vcpu-16gb", NodeCount: 3,
			Cluster: &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_Value{Value: cid}},
			Rollout: &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, DrainTimeoutMinutes: 5}},
	}}
	ctx := context.Background()
	resolve := func(_ context.Context, ref *sharedv1.StringValueOrRef, _ string) (string, error) {
		return ref.GetValue(), nil
	}
	r, err := rotate(ctx, input, "", resolve)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := r.Kubeconfig(ctx)
	if err != nil || !strings.Contains(string(kubeconfig), "kind: Config") || r.Nodes != 3 || r.Drain.Timeout != 5*time.Minute {
		t.Errorf("rotation readied with %d nodes, drain %s, kubeconfig %d bytes (%v)", r.Nodes, r.Drain.Timeout, len(kubeconfig), err)
	}
	old, _ := do.PoolNamed(cid, "workers")
	mark := rotation.NewMark("do-nodepool/web-workers", rotation.NewID()).String()
	if id, err := r.Cloud.Find(ctx, "workers-surge", mark); err != nil || id != "" {
		t.Fatalf("Find of a pool not there = %q, %v", id, err)
	}
	// The stack's own pool carries no mark of the rotation: found by name, it is not the rotation's.
	var foreign *rotation.ForeignPoolError
	if id, err := r.Cloud.Find(ctx, "workers", mark); !errors.As(err, &foreign) || foreign.ID != old.ID {
		t.Errorf("Find of a pool of the name without the mark = %q, %v; want it named as not the rotation's", id, err)
	}
	id, err := r.Cloud.Create(ctx, "workers-surge", mark)
	if err != nil {
		t.Fatal(err)
	}
	if found, err := r.Cloud.Find(ctx, "workers-surge", mark); err != nil || found != id {
		t.Errorf("Find after the create = %q, %v, want %s", found, err, id)
	}
	if marked, err := r.Cloud.Marked(ctx); err != nil || len(marked) != 1 || marked[0].ID != id || marked[0].Mark.String() != mark {
		t.Errorf("Marked = %+v, %v; want the surge pool with its mark", marked, err)
	}
	if err := r.WaitRunning(ctx, "workers-surge", time.Minute); err != nil {
		t.Fatal(err)
	}
	// A pool deleted outside clusterplane is said at once, not waited for until the timeout.
	start := time.Now()
	if err := r.WaitRunning(ctx, "workers-gone", time.Minute); err == nil || !strings.Contains(err.Error(), "is not in the cloud") ||
		time.Since(start) > 10*time.Second {
		t.Errorf("wait for a pool not in the cloud = %v after %s, want it said at once", err, time.Since(start))
	}
	surge, _ := do.Pool(cid, id)
	if surge.Size != "s-8vcpu-16gb" || surge.Count != 3 || len(surge.Nodes) != 3 || surge.Nodes[0].Status.State != "running" {
		t.Errorf("surge pool %+v, want 3 running s-8vcpu-16gb nodes", surge)
	}
	if err := r.Cloud.Delete(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Cloud.Delete(ctx, old.ID); err != nil {
		t.Errorf("a second delete of the gone pool: %v", err)
	}
	if err := r.Cloud.Rename(ctx, id, "workers"); err != nil {
		t.Fatal(err)
	}
	pools := do.Pools(cid)
	if len(pools) != 1 || pools[0].ID != id || pools[0].Name != "workers" || pools[0].Size != "s-8vcpu-16gb" {
		t.Errorf("the cluster's pools after the rotation: %+v", pools)
	}
	// The rename drops the mark: the provider's read of the pool finds the manifest's tags only.
	if slices.ContainsFunc(pools[0].Tags, func(t string) bool { return strings.HasPrefix(t, digitalocean.MarkTag) }) ||
		!slices.Contains(pools[0].Tags, "resource-name:web-workers") {
		t.Errorf("the renamed pool is tagged %v, want the manifest's tags without the rotation's mark", pools[0].Tags)
	}
	if r.NodeLabels != "digitalocean" {
		t.Errorf("the pool's nodes are found by the labels of cloud %q", r.NodeLabels)
	}
}
